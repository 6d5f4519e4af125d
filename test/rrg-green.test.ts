import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { greenPromptFor } from '../src/rrg/green.js';
import { runCli } from './helpers/cli.js';
import { startFakeOpenAI, type RecordedRequest } from './helpers/fake-openai-server.js';
import { startFakeScoringService, toyGreen } from './helpers/fake-scoring-service.js';
import { greenReply } from './helpers/green-reply.js';
import { tempDir } from './helpers/records.js';

/** The two reports of a GREEN prompt, as the stand-in judge reads them back. */
function reportsOf(prompt: string): { reference: string; candidate: string } {
  const m = /\n {4}2\. Reference Report:\n {4}([\s\S]*?)\n\n {4}3\. Candidate Report:\n {4}([\s\S]*?)\n\n {4}4\. Reporting Your Assessment:/.exec(prompt);
  if (!m) throw new Error('not a GREEN prompt');
  return { reference: m[1]!, candidate: m[2]! };
}

/** The stand-in GREEN judge: GREEN's reply format with the toy judgement; a candidate saying UNREADABLE gets prose. */
const judgeReply = (r: RecordedRequest) => {
  const pair = reportsOf(r.text);
  return pair.candidate.includes('UNREADABLE') ? 'I am unable to compare these two reports.' : greenReply(toyGreen(pair));
};

const LONG = Array.from({ length: 230 }, (_, i) => (i === 210 ? 'effusion' : `word${i}`)).join(' ');
const STUDIES = {
  s1: { model_prediction: 'Small left pleural effusion. No pneumothorax.', section_findings: 'Left pleural effusion and pneumothorax.', section_impression: 'None', report: '' },
  s2: { model_prediction: 'Cardiomegaly with edema.', section_findings: 'Cardiomegaly with edema. Small effusion.', section_impression: 'None', report: '' },
  s3: { model_prediction: 'UNREADABLE reply expected.', section_findings: 'Normal chest.', section_impression: 'None', report: '' },
  s4: { model_prediction: LONG, section_findings: 'Right effusion.', section_impression: 'None', report: '' },
};
/** GREEN of each study by hand: matched / (matched + missing) over the lexicon words; s3's reply is unreadable (0); s4's "effusion" is past the 200-word cut. */
const EXPECTED = { s1: 2 / 2, s2: 2 / 3, s3: 0, s4: 0 };

let server: Awaited<ReturnType<typeof startFakeOpenAI>>;
before(async () => {
  server = await startFakeOpenAI({ reply: judgeReply });
});
after(() => server.close());

function predictions(): string {
  const file = join(tempDir(), 'predictions.json');
  writeFileSync(file, JSON.stringify(STUDIES));
  return file;
}

const greenArgs = (url: string) => ['--green', 'openai:StanfordAIMI/GREEN-RadLlama2-7b', '--green-endpoint', url];

test('rrg score --green: GREEN\'s prompt to an OpenAI-compatible judge, its replies read here as GREEN reads them, kept in a journal so a rerun asks nothing', async () => {
  const pred = predictions();
  const before = server.requests.length;
  const run = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'bleu,green', ...greenArgs(server.url), '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const asked = server.requests.slice(before);
  assert.equal(asked.length, 4, 'one request per study');
  for (const r of asked) {
    assert.equal(r.body.model, 'StanfordAIMI/GREEN-RadLlama2-7b');
    assert.equal(r.body.messages!.length, 1, 'one user message, no system prompt: GREEN was trained on its prompt alone');
    assert.equal(r.body.temperature, 0, 'greedy, as GREEN generates');
    assert.equal(r.body.max_tokens, 2048);
  }
  const s4 = asked.find((r) => r.text.includes('word0'))!;
  assert.equal(s4.text, greenPromptFor({ reference: 'Right effusion.', candidate: LONG }), 'the prompt is GREEN\'s, word for word');
  assert.ok(s4.text.includes('word199') && !s4.text.includes('word200'), 'each report cut at 200 words');
  const out = JSON.parse(run.stdout) as { metrics: Record<string, { mean: number; n: number }>; studies: { id: string; green: number; green_counts?: { matched: number; significant: number[]; insignificant: number[] } }[]; green_unreadable: string[]; green_failed: string[]; not_computed: Record<string, string> };
  const green = Object.fromEntries(out.studies.map((s) => [s.id, s.green]));
  for (const [id, value] of Object.entries(EXPECTED)) assert.ok(Math.abs(green[id]! - value) < 1e-12, `${id}: GREEN ${green[id]} ≠ ${value}`);
  assert.ok(Math.abs(out.metrics.green!.mean - (1 + 2 / 3) / 4) < 1e-12);
  assert.deepEqual(out.studies.find((s) => s.id === 's2')!.green_counts, { matched: 2, significant: [0, 1, 0, 0, 0, 0], insignificant: [0, 0, 0, 0, 0, 0] });
  assert.deepEqual(out.green_unreadable, ['s3'], 'a reply with none of GREEN\'s sections scores 0 and is named');
  assert.deepEqual(out.green_failed, []);
  assert.match(run.stderr, /GREEN judge StanfordAIMI\/GREEN-RadLlama2-7b: 4 asked now, 0 from its journal/);
  assert.ok(existsSync(`${pred}.green-journal.jsonl`), 'the journal sits beside the predictions by default');

  const again = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'bleu,green', ...greenArgs(server.url), '--format', 'json']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.requests.length, before + 4, 'nothing asked twice');
  assert.match(again.stderr, /0 asked now, 4 from its journal/);
  assert.deepEqual(JSON.parse(again.stdout).studies, out.studies);

  const table = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'green', ...greenArgs(server.url)]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /1 GREEN reply has none of GREEN's sections \(or a count too large to be one\) and scored 0: s3/);
});

test('rrg score --green: a study the judge failed on leaves GREEN "not computed" naming it, exit 5; the rerun asks about that study only', async () => {
  const flaky = await startFakeOpenAI({ reply: judgeReply, fault: (_, r) => (reportsOf(r.text).candidate.startsWith('Cardiomegaly') ? '400' : null) });
  try {
    const pred = predictions();
    const run = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'bleu,green', ...greenArgs(flaky.url), '--format', 'json']);
    assert.equal(run.code, 5, run.stderr);
    const out = JSON.parse(run.stdout) as { metrics: Record<string, unknown>; not_computed: Record<string, string>; green_failed: string[] };
    assert.ok(out.metrics.bleu, 'the other metrics are still scored');
    assert.equal(out.metrics.green, undefined, 'no GREEN mean over the studies that happened to answer');
    assert.deepEqual(out.green_failed, ['s2']);
    assert.match(out.not_computed.green!, /no reply for 1 of 4 studies: s2 \(client: .*\)\. Rerun the same command/);
    const asked = flaky.requests.length;
    const healthy = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'bleu,green', ...greenArgs(server.url), '--green-journal', `${pred}.green-journal.jsonl`, '--format', 'json']);
    assert.equal(healthy.code, 0, healthy.stderr);
    assert.match(healthy.stderr, /1 asked now, 3 from its journal/);
    assert.equal(flaky.requests.length, asked);
    assert.ok(Math.abs((JSON.parse(healthy.stdout) as { metrics: { green: { mean: number } } }).metrics.green.mean - (1 + 2 / 3) / 4) < 1e-12);
  } finally {
    await flaky.close();
  }
});

test('rrg score --green options: the judge adds GREEN to the default metrics, contradicts an explicit list without it; a bad spec and orphan flags are refused', async () => {
  const pred = predictions();
  const added = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', ...greenArgs(server.url), '--format', 'json']);
  assert.equal(added.code, 0, added.stderr);
  assert.ok((JSON.parse(added.stdout) as { metrics: Record<string, unknown> }).metrics.green);
  const contradiction = await runCli(['rrg', 'score', '--pred', pred, '--metrics', 'bleu', ...greenArgs(server.url)]);
  assert.equal(contradiction.code, 2);
  assert.match(contradiction.stderr, /--green .* is given but --metrics bleu does not include green/);
  const baseline = await runCli(['rrg', 'score', '--pred', pred, '--green', 'baseline:random', '--metrics', 'green']);
  assert.equal(baseline.code, 2);
  assert.match(baseline.stderr, /--green baseline:random: GREEN's judge is a language model behind an OpenAI-compatible endpoint/);
  const noEndpoint = await runCli(['rrg', 'score', '--pred', pred, '--green', 'openai:m']);
  assert.equal(noEndpoint.code, 2);
  assert.match(noEndpoint.stderr, /--green openai:m needs --green-endpoint <base URL>/, 'the message names this command\'s flag');
  const notUrl = await runCli(['rrg', 'score', '--pred', pred, '--green', 'openai:m', '--green-endpoint', 'localhost:8000']);
  assert.equal(notUrl.code, 2);
  assert.match(notUrl.stderr, /--green-endpoint localhost:8000: not an http\(s\) URL/);
  const preset = await runCli(['rrg', 'score', '--pred', pred, '--green', 'preset:medgemma-4b-it', '--metrics', 'green']);
  assert.equal(preset.code, 2);
  assert.match(preset.stderr, /--green preset:medgemma-4b-it: GREEN's judge is a language model behind an OpenAI-compatible endpoint: openai:<model id>/);
  const folderJournal = tempDir();
  const folder = await runCli(['rrg', 'score', '--pred', pred, ...greenArgs(server.url), '--green-journal', folderJournal]);
  assert.equal(folder.code, 2, 'a journal that cannot be written is refused before anything is scored');
  assert.equal(folder.stderr, `cxrbench: --green-journal ${folderJournal}: a folder, not a file\n`);
  const orphan = await runCli(['rrg', 'score', '--pred', pred, '--green-endpoint', server.url]);
  assert.equal(orphan.code, 2);
  assert.match(orphan.stderr, /--green-endpoint, --green-api-key-env and --green-journal need --green <spec>/);
});

test('rrg score green through a scoring service: its judge replies read here; a first-protocol service answering counts still scored', async () => {
  const service = await startFakeScoringService();
  try {
    const pred = predictions();
    for (const base of [service.url, `${service.url}/legacy`]) {
      const run = await runCli(['rrg', 'score', '--pred', pred, '--track', 'findings', '--metrics', 'green', '--service', base, '--format', 'json']);
      assert.equal(run.code, 0, run.stderr);
      const green = Object.fromEntries((JSON.parse(run.stdout) as { studies: { id: string; green: number }[] }).studies.map((s) => [s.id, s.green]));
      // The toy service judges by words: s3 has no lexicon word (0 of 0 → 0), s4's effusion counts (the service gets the whole report).
      assert.deepEqual({ s1: green.s1, s2: green.s2 }, { s1: EXPECTED.s1, s2: EXPECTED.s2 }, base);
    }
    assert.deepEqual(service.calls, ['/green', '/legacy/green']);
  } finally {
    await service.close();
  }
});

test('board: GREEN from the judge the environment names — scored into the entry; a judge failing on a study fails the attempt without a word of the references, and the retry asks about that study only; bad settings are refused by variable', async () => {
  const { boardGreenConfig, scoreRrgUpload } = await import('../src/board/rrg-entries.js');
  const references = new Map(Object.entries(STUDIES).map(([id, s]) => [id, s.section_findings]));
  const upload = JSON.stringify(Object.fromEntries(Object.entries(STUDIES).map(([id, s]) => [id, { model_prediction: s.model_prediction }])));
  const journalDir = tempDir();
  const env = { CXRBENCH_RRG_GREEN: 'openai:StanfordAIMI/GREEN-RadLlama2-7b', CXRBENCH_RRG_GREEN_JOURNAL_DIR: journalDir };
  const flaky = await startFakeOpenAI({ reply: judgeReply, fault: (_, r) => (reportsOf(r.text).candidate.startsWith('Cardiomegaly') ? '400' : null) });
  const saved = { ...process.env };
  try {
    Object.assign(process.env, env, { CXRBENCH_RRG_GREEN_ENDPOINT: flaky.url });
    delete process.env.CXRBENCH_RRG_SERVICE;
    await assert.rejects(scoreRrgUpload(upload, 'rexrank-json', { track: 'findings' }, references, { resamples: 100, seed: 0, submissionId: 'sub-1' }), (error: Error) => {
      assert.equal(error.message, 'the GREEN judge gave no reply for 1 of 4 studies; scoring is retried, asking about those only');
      return true;
    });
    const before = server.requests.length;
    process.env.CXRBENCH_RRG_GREEN_ENDPOINT = server.url;
    const entry = await scoreRrgUpload(upload, 'rexrank-json', { track: 'findings' }, references, { resamples: 100, seed: 0, submissionId: 'sub-1' });
    assert.equal(server.requests.length, before + 1, 'the retry asks about the failed study only');
    assert.ok(Math.abs(entry.metrics.green!.mean - (1 + 2 / 3) / 4) < 1e-12);
    assert.equal(entry.ranking.by, 'bleu', 'GREEN alone does not make RadCliQ-v1');
    assert.match(entry.backend!, /GREEN judge StanfordAIMI\/GREEN-RadLlama2-7b/);

    assert.throws(() => boardGreenConfig({ CXRBENCH_RRG_GREEN: 'green-7b' }), /CXRBENCH_RRG_GREEN=green-7b: expected openai:<model id>/);
    assert.throws(() => boardGreenConfig({ CXRBENCH_RRG_GREEN: 'openai:m' }), /CXRBENCH_RRG_GREEN_ENDPOINT is not/);
    assert.throws(() => boardGreenConfig({ CXRBENCH_RRG_GREEN: 'openai:m', CXRBENCH_RRG_GREEN_ENDPOINT: 'ftp://x' }), /CXRBENCH_RRG_GREEN_ENDPOINT: ftp:\/\/x is not an http\(s\) URL/);
    assert.throws(() => boardGreenConfig({ CXRBENCH_RRG_GREEN: 'openai:m', CXRBENCH_RRG_GREEN_ENDPOINT: 'http://127.0.0.1:1/v1', CXRBENCH_RRG_GREEN_API_KEY_ENV: 'NO_SUCH_KEY_VAR' }), /CXRBENCH_RRG_GREEN_API_KEY_ENV names NO_SUCH_KEY_VAR, which is not set/);
    assert.equal(boardGreenConfig({}), null);
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await flaky.close();
  }
});
