import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sentenceBleu } from '../src/rrg/bleu.js';
import { radcliqV1 } from '../src/rrg/radcliq.js';
import { rexrankTokens } from '../src/rrg/tokenize.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { startFakeScoringService } from './helpers/fake-scoring-service.js';

let service: Awaited<ReturnType<typeof startFakeScoringService>>;
let base = '';
before(async () => {
  service = await startFakeScoringService();
  base = service.url;
});
after(() => service.close());

const rexrankFile = (records: Record<string, unknown>) => {
  const file = join(tempDir(), 'predictions.json');
  writeFileSync(file, JSON.stringify(records));
  return file;
};

const STUDIES = {
  s1: { model_prediction: 'No pleural effusion. Normal heart size.', section_findings: 'No pleural effusion. Normal heart size.', section_impression: 'Normal chest.', report: '' },
  s2: { model_prediction: 'Small left pleural effusion.', section_findings: 'Large right pneumothorax.', section_impression: 'None', report: '' },
  s3: { model_prediction: '', section_findings: 'Cardiomegaly with mild edema.', section_impression: 'Cardiomegaly.', report: '' },
};

test('rrg score: BLEU-2 and ROUGE-L here; model metrics through the scoring service, their arithmetic here; RadCliQ-v1 and its reciprocal; an empty prediction named', async () => {
  const run = await runCli(['rrg', 'score', '--pred', rexrankFile(STUDIES), '--track', 'findings', '--metrics', 'bleu,rouge-l,bertscore,sembscore,radgraph,green,radcliq-v1', '--service', base, '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { metrics: Record<string, { mean: number; lo: number; hi: number; n: number }>; studies: Record<string, number | string>[]; empty_predictions: string[]; ranking: { value: number; kind: string }; not_computed: Record<string, string> };
  assert.deepEqual(Object.keys(out.metrics).sort(), ['bertscore', 'bleu', 'green', 'radcliq_v1', 'radgraph', 'rouge_l', 'sembscore']);
  assert.deepEqual(out.empty_predictions, ['s3']);
  const s = Object.fromEntries(out.studies.map((x) => [x.id, x]));
  assert.equal(s.s1!.bleu, 1, 'a prediction equal to the findings scores 1');
  assert.equal(s.s2!.bleu, sentenceBleu([rexrankTokens('Large right pneumothorax.')], rexrankTokens('Small left pleural effusion.')));
  assert.equal(s.s3!.bleu, 0, 'the empty report scores 0');
  assert.equal(s.s1!.rouge_l, 1);
  assert.equal(s.s1!.bertscore, 1, 'identical token embeddings: F = 1, rescaled 1');
  assert.ok((s.s2!.bertscore as number) < 0, 'no shared tokens: F below the baseline, rescaled negative');
  assert.equal(s.s1!.radgraph, 1);
  assert.equal(s.s2!.green, 0, 'pneumothorax missed, nothing matched');
  for (const st of out.studies) assert.equal(st.radcliq_v1, radcliqV1({ radgraph: st.radgraph as number, bertscore: st.bertscore as number, sembscore: st.sembscore as number, bleu: st.bleu as number }));
  const mean = (m: string) => out.studies.reduce((sum, x) => sum + (x[m] as number), 0) / 3;
  assert.equal(out.metrics.bleu!.mean, mean('bleu'));
  assert.ok(out.metrics.bleu!.lo <= out.metrics.bleu!.mean && out.metrics.bleu!.mean <= out.metrics.bleu!.hi);
  assert.equal(out.metrics.radcliq_v1!.n, 3);
  assert.deepEqual(out.ranking, out.metrics.radcliq_v1!.mean > 0 ? { value: 1 / out.metrics.radcliq_v1!.mean, kind: 'inverse' } : { value: out.metrics.radcliq_v1!.mean, kind: 'radcliq' });
  assert.deepEqual(out.not_computed, {});
});

test('rrg score without a scoring service: the model metrics say "not computed" and how to enable them, never a number', async () => {
  const run = await runCli(['rrg', 'score', '--pred', rexrankFile(STUDIES), '--metrics', 'bleu,bertscore,radcliq-v1,fineradscore']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^bleu\s+0\.\d{4}\s+0\.\d{4}–\d\.\d{4}\s+3$/m);
  assert.match(run.stdout, /^bertscore\s+not computed/m);
  assert.match(run.stdout, /bertscore: not computed: BERTScore needs distilroberta-base token embeddings — give a scoring service with --service <url>/);
  assert.match(run.stdout, /radcliq_v1: not computed: RadCliQ-v1 combines RadGraph, BERTScore, SembScore and BLEU; missing radgraph, bertscore, sembscore/);
  assert.match(run.stdout, /fineradscore: not computed: FineRadScore's report score is not defined in its authors' code/);
  assert.match(run.stdout, /1 study has an empty or missing prediction, scored as an empty report: s3/);
});

test('rrg score --metrics ratescore through the scoring service: entities and embeddings from /ratescore, RaTEScore worked out by hand', async () => {
  const file = rexrankFile({
    same: { model_prediction: 'Cardiomegaly with edema.', section_findings: 'Cardiomegaly with edema.' },
    // the fake service's entities: cardiomegaly (ABNORMALITY) and normal (NON-ABNORMALITY) against normal alone
    negated: { model_prediction: 'Normal.', section_findings: 'Cardiomegaly. Normal.' },
    disjoint: { model_prediction: 'Small left pleural effusion.', section_findings: 'Large right pneumothorax.' },
    empty: { model_prediction: 'Heart size is stable.', section_findings: 'Mild edema.' },
  });
  const run = await runCli(['rrg', 'score', '--pred', file, '--track', 'findings', '--metrics', 'ratescore,fineradscore', '--service', base, '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { metrics: Record<string, { mean: number; n: number }>; studies: Record<string, number | string>[]; not_computed: Record<string, string> };
  const s = Object.fromEntries(out.studies.map((x) => [x.id, x.ratescore]));
  assert.equal(s.same, 1);
  // reference → prediction: cardiomegaly's best match is "normal" with cosine 0 (weight abnormality_non-abnormality
  // 0.5431049700217344, penalised to nothing); normal matches itself (weight non-abnormality_non-abnormality).
  const wNon = 0.0009357166071730684;
  const p1 = (0 + 1 * wNon) / (0.5431049700217344 + wNon);
  // prediction → reference: normal matches itself: 1.
  assert.ok(Math.abs((s.negated as number) - (2 * p1 * 1) / (p1 + 1)) < 1e-15);
  assert.equal(s.disjoint, 0, 'one-hot embeddings of different words: cosine 0 both ways');
  assert.equal(s.empty, 0.5, 'no entity in the prediction: RaTEScore gives 0.5');
  assert.ok(Math.abs(out.metrics.ratescore!.mean - (1 + (s.negated as number) + 0 + 0.5) / 4) < 1e-15);
  assert.deepEqual(Object.keys(out.metrics), ['ratescore']);
  assert.match(out.not_computed.fineradscore!, /^not computed: FineRadScore's report score is not defined in its authors' code \(rajpurkarlab\/FineRadScore/);
  assert.deepEqual(service.calls.filter((c) => c.includes('ratescore')).sort(), ['/ratescore', '/ratescore']);
});

test('rrg score ratescore: a service without /ratescore leaves it "not computed" (the rest still scored); a reply of the wrong shape is refused', async () => {
  const file = rexrankFile(STUDIES);
  const old = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bleu,ratescore', '--service', `${base}/old`]);
  assert.equal(old.code, 0, old.stderr);
  assert.match(old.stdout, /^bleu\s+0\.\d{4}/m);
  assert.match(old.stdout, /ratescore: not computed: scoring service .*\/old\/ratescore: HTTP 404 — the service does not run this model; RaTEScore needs a service with \/ratescore, or --onnx-ratescore-ner and --onnx-ratescore-encoder/);
  const none = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'ratescore']);
  assert.match(none.stdout, /ratescore: not computed: RaTEScore needs the RaTE-NER model and BioLORD entity embeddings — give a scoring service with --service <url>, or model folders with --onnx-ratescore-ner and --onnx-ratescore-encoder/);
  const broken = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'ratescore', '--service', `${base}/broken`]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /scoring service .*\/broken\/ratescore: the reply is not in the documented shape \(entities\.0\.0\.type: /);
});

test('rrg score: the findings+impression reference is ReXrank\'s "Findings: … Impression: …" with None for a missing section', async () => {
  const file = rexrankFile({ a: { model_prediction: 'Findings: Large right pneumothorax. Impression: None', section_findings: 'Large right pneumothorax.', section_impression: null } });
  const run = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bleu', '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as { studies: { bleu: number }[] }).studies[0]!.bleu, 1);
});

test('rrg score bad input: non-string prediction, every section None, ids that do not match the references, a broken service — each named, nothing scored', async () => {
  const bad = await runCli(['rrg', 'score', '--pred', rexrankFile({ ...STUDIES, s4: { model_prediction: ['a list'], section_findings: 'x' }, s5: { model_prediction: 'Normal.', section_findings: 'None', section_impression: 'None', report: 'None' } })]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /study s4: model_prediction is a list, not text/);
  assert.match(bad.stderr, /study s5: no reference text for the findings-impression track \(section_findings and section_impression are None or missing\)/);
  assert.doesNotMatch(bad.stdout, /bleu/);
  const refs = rexrankFile({ s1: STUDIES.s1, s2: STUDIES.s2, x9: STUDIES.s3 });
  const preds = rexrankFile({ s1: { model_prediction: 'a' }, s2: { model_prediction: 'b' }, y1: { model_prediction: 'c' }, y2: { model_prediction: 'd' } });
  const keyed = await runCli(['rrg', 'score', '--pred', preds, '--ref', refs]);
  assert.equal(keyed.code, 2);
  assert.match(keyed.stderr, /1 study of the references has no prediction: x9/);
  assert.match(keyed.stderr, /2 predicted studies are not in the references: y1, y2/);
  const notJson = rexrankFile({});
  writeFileSync(notJson, '{"s1": ');
  assert.match((await runCli(['rrg', 'score', '--pred', notJson])).stderr, /not JSON/);
  const broken = await runCli(['rrg', 'score', '--pred', rexrankFile(STUDIES), '--metrics', 'bertscore', '--service', `${base}/broken`]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /scoring service .*\/broken\/bertscore: the reply is not in the documented shape/);
  assert.equal((await runCli(['rrg', 'score', '--pred', rexrankFile(STUDIES), '--metrics', 'bleu,meteor'])).code, 2);
});

