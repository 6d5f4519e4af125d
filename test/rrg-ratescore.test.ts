import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rateScore, type RateEntity, type RateEntityType } from '../src/rrg/ratescore.js';
import { scoreReports } from '../src/rrg/score-reports.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { clsVector, closingOnnxBackends, VOCAB, writeTinyModelFolder, type TinyClassifier } from './helpers/tiny-onnx.js';

/**
 * RaTEScore through the ONNX backend, on networks built by test/helpers/tiny-onnx.ts and run by onnxruntime-node: a
 * token classifier whose label for a word is fixed (so the entities can be worked out by hand, through RaTEScore's
 * BIO grouping), and the "contextual" encoder whose [CLS] vector is row([CLS]) + the sum of the rows of its input.
 */
type Token = (typeof VOCAB)[number];
// Output order deliberately not O first: the labels must come from config.json's id2label.
const CLASSIFIER: TinyClassifier = {
  labels: ['B-ANATOMY', 'I-ANATOMY', 'O', 'B-ABNORMALITY', 'I-ABNORMALITY', 'B-NON-ABNORMALITY', 'I-NON-ABNORMALITY', 'B-DISEASE', 'I-DISEASE', 'B-NON-DISEASE', 'I-NON-DISEASE'],
  labelOf: {
    large: 'B-ABNORMALITY', right: 'I-ABNORMALITY', pneumothorax: 'I-ABNORMALITY', pleural: 'B-ANATOMY', effusion: 'B-ABNORMALITY',
    lower: 'B-ANATOMY', lobe: 'I-ANATOMY', atelectasis: 'B-ABNORMALITY', edema: 'B-DISEASE', lungs: 'B-ANATOMY', clear: 'B-NON-ABNORMALITY',
    normal: 'B-NON-DISEASE', heart: 'B-ANATOMY',
  },
};
const dir = tempDir();
const ner = writeTinyModelFolder(dir, 'rate-ner', { classifier: CLASSIFIER });
const encoder = writeTinyModelFolder(dir, 'biolord', { kind: 'contextual' });
const backend = closingOnnxBackends();
const e = (type: RateEntityType, tokens: Token[]): RateEntity => ({ text: tokens.join(' '), type, embedding: clsVector(tokens) });

const LONG = `Large ${'right '.repeat(30)}pneumothorax.`;
const TEXTS: { text: string; entities: RateEntity[] }[] = [
  { text: 'Large right pneumothorax.', entities: [e('ABNORMALITY', ['large', 'right', 'pneumothorax'])] },
  // two sentences, each tagged alone; B followed by B makes one-token entities
  { text: 'No pleural effusion. Normal heart size.', entities: [e('ANATOMY', ['pleural']), e('ABNORMALITY', ['effusion']), e('NON-DISEASE', ['normal']), e('ANATOMY', ['heart'])] },
  // I followed by B closes "lower lobe"; the last entity's next position is [SEP] (labelled O)
  { text: 'Mild edema with bilateral lower lobe atelectasis', entities: [e('DISEASE', ['edema']), e('ANATOMY', ['lower', 'lobe']), e('ABNORMALITY', ['atelectasis'])] },
  { text: 'Lungs are clear.', entities: [e('ANATOMY', ['lungs']), e('NON-ABNORMALITY', ['clear'])] },
  { text: '', entities: [] },
  // an I with nothing open is no entity; "A." is too short to be a sentence
  { text: 'Lobe. A.', entities: [] },
  // the entity encoder sees at most 30 positions: [CLS], 28 tokens, [SEP]
  { text: LONG, entities: [{ text: `large ${'right '.repeat(30)}pneumothorax`, type: 'ABNORMALITY', embedding: clsVector(['large', ...Array<Token>(27).fill('right')]) }] },
];

test('onnx ratescoreEntities: sentences tagged by the token classifier, grouped as RaTEScore groups labels, decoded, embedded by the encoder\'s [CLS] (cut at 30 positions)', async () => {
  const b = backend({ ratescoreNer: ner, ratescoreEncoder: encoder, batchSize: 2 });
  assert.equal(b.tokenEmbeddings, undefined);
  assert.deepEqual(await b.ratescoreEntities!(TEXTS.map((t) => t.text)), TEXTS.map((t) => t.entities));
});

const PAIRS = [
  { id: 'same', reference: TEXTS[1]!.text, prediction: TEXTS[1]!.text },
  { id: 'partial', reference: TEXTS[1]!.text, prediction: TEXTS[3]!.text },
  { id: 'other', reference: TEXTS[2]!.text, prediction: TEXTS[0]!.text },
  { id: 'no-entity', reference: TEXTS[0]!.text, prediction: 'Lobe.' },
];

test('onnx RaTEScore through scoreReports: rateScore of the entities worked out by hand; identical reports 1, a prediction without entities 0.5', async () => {
  const results = await scoreReports(PAIRS, { metrics: ['ratescore'], backend: backend({ ratescoreNer: ner, ratescoreEncoder: encoder }), resamples: 100 });
  const got = Object.fromEntries(results.studies.map((s) => [s.id, s.values.ratescore]));
  const entities = (text: string) => TEXTS.find((t) => t.text === text)?.entities ?? [];
  for (const p of PAIRS) assert.equal(got[p.id], rateScore(entities(p.reference), entities(p.prediction)), p.id);
  assert.ok(Math.abs(got.same! - 1) < 1e-12);
  assert.equal(got['no-entity'], 0.5);
  assert.ok(got.partial! > 0 && got.partial! < 1);
  assert.deepEqual(results.not_computed, {});
  assert.equal(results.settings.backend, `onnx (ratescore ${ner} + ${encoder})`);
});

test('cxrbench rrg score --onnx-ratescore-ner/--onnx-ratescore-encoder: the same values; one folder alone, a missing config.json or a label RaTEScore has no type for is refused by name', async () => {
  const file = join(tempDir(), 'pairs.jsonl');
  writeFileSync(file, PAIRS.map((p) => JSON.stringify(p)).join('\n'));
  const run = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'ratescore', '--onnx-ratescore-ner', ner, '--onnx-ratescore-encoder', encoder, '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const direct = await scoreReports(PAIRS, { metrics: ['ratescore'], backend: backend({ ratescoreNer: ner, ratescoreEncoder: encoder }), resamples: 100 });
  const out = JSON.parse(run.stdout) as { studies: { id: string; ratescore: number }[] };
  assert.deepEqual(out.studies.map((s) => s.ratescore), direct.studies.map((s) => s.values.ratescore));

  const alone = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'ratescore', '--onnx-ratescore-ner', ner]);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /RaTEScore needs both ONNX model folders: --onnx-ratescore-encoder \(the BioLORD entity encoder\) is missing/);
  const noConfig = writeTinyModelFolder(dir, 'ner-no-config', { classifier: CLASSIFIER, omit: ['config.json'] });
  const missing = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'ratescore', '--onnx-ratescore-ner', noConfig, '--onnx-ratescore-encoder', encoder]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`RaTEScore NER ONNX model folder ${noConfig} is missing config\\.json: it needs model\\.onnx and tokenizer\\.json and config\\.json`));
  const foreign = writeTinyModelFolder(dir, 'ner-foreign', { classifier: { labels: ['O', 'B-FINDING', 'I-FINDING'], labelOf: { effusion: 'B-FINDING' } } });
  const refused = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bleu,ratescore', '--onnx-ratescore-ner', foreign, '--onnx-ratescore-encoder', encoder]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /RaTEScore NER ONNX model folder .*ner-foreign: config\.json: label B-FINDING, I-FINDING is not O, B-<type> or I-<type> with a RaTEScore type \(ABNORMALITY, NON-ABNORMALITY, DISEASE, NON-DISEASE, ANATOMY\)/);
});
