import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CxrError } from '../src/core/errors.js';
import { bertScoreF1, BERTSCORE_BASELINE_F, cosine } from '../src/rrg/model-metrics.js';
import { OnnxBackend } from '../src/rrg/onnx-backend.js';
import { scoreReports } from '../src/rrg/score-reports.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { clsVector, closingOnnxBackends, ROBERTA_VOCAB, row, TABLE, VOCAB, writeTinyModelFolder } from './helpers/tiny-onnx.js';

/**
 * The ONNX backend on networks built by test/helpers/tiny-onnx.ts, run by the real onnxruntime-node: a token's
 * vector is its embedding-table row ("plain", for BERTScore), or row + the sum of its text's rows ("contextual", a
 * CheXbert stand-in), so every expected number is computed here from the table.
 */
type Token = (typeof VOCAB)[number];
const rows = (tokens: Token[]) => tokens.map(row);

const dir = tempDir();
const plain = writeTinyModelFolder(dir, 'bertscore');
const contextual = writeTinyModelFolder(dir, 'chexbert', { kind: 'contextual' });
const backend = closingOnnxBackends();

const TEXTS: { text: string; tokens: Token[] }[] = [
  { text: 'No pleural effusions.', tokens: ['no', 'pleural', 'effusion', '##s', '.'] },
  { text: '  Heart size is NORMAL ', tokens: ['heart', 'size', 'is', 'normal'] },
  { text: '', tokens: [] },
  // [UNK] is one of the tokenizer's special tokens, but here it stands for a word of the text: it stays.
  { text: 'Mild edema, xyz.', tokens: ['mild', 'edema', ',', '[UNK]', '.'] },
  { text: 'No pleural effusions.', tokens: ['no', 'pleural', 'effusion', '##s', '.'] },
];

test('onnx tokenEmbeddings: one vector per token of the text — its table row — with [CLS] and [SEP] dropped, in order, across padded batches', async () => {
  const b = backend({ bertscore: plain, batchSize: 2 });
  assert.equal(b.reportEmbeddings, undefined, 'no CheXbert folder: SembScore is not offered');
  assert.deepEqual(await b.tokenEmbeddings!(TEXTS.map((t) => t.text)), TEXTS.map((t) => rows(t.tokens)));
});

test('onnx tokenEmbeddings with a RoBERTa-style tokenizer (byte-level BPE, as distilroberta-base): <s> and </s> dropped, the BPE pieces kept', async () => {
  const roberta = writeTinyModelFolder(dir, 'roberta', { tokenizer: 'roberta' });
  const piece = (t: (typeof ROBERTA_VOCAB)[number]) => TABLE[ROBERTA_VOCAB.indexOf(t)]!;
  const got = await backend({ bertscore: roberta }).tokenEmbeddings!(['No effusion. No', 'No', '']);
  assert.deepEqual(got, [['No', 'Ġeffusion', '.', 'Ġ', 'No'].map((t) => piece(t as (typeof ROBERTA_VOCAB)[number])), [piece('No')], []]);
});

test('onnx tokenEmbeddings: a text longer than model_max_length keeps its first tokens and the special tokens, as transformers truncates', async () => {
  const short = writeTinyModelFolder(dir, 'short', { modelMaxLength: 5 });
  const b = backend({ bertscore: short });
  assert.deepEqual(await b.tokenEmbeddings!(['No pleural effusion. Normal heart size.', 'Normal.']), [rows(['no', 'pleural', 'effusion']), rows(['normal', '.'])]);
});

const PAIRS = [
  { id: 'same', reference: 'No pleural effusion. Normal heart size.', prediction: 'No pleural effusion. Normal heart size.' },
  { id: 'disjoint', reference: 'Large right pneumothorax', prediction: 'small left effusion' },
  { id: 'partial', reference: 'Mild edema with bilateral lower lobe atelectasis.', prediction: 'Mild pulmonary edema.' },
];
const TOKENS: Record<string, { reference: Token[]; prediction: Token[] }> = {
  same: { reference: ['no', 'pleural', 'effusion', '.', 'normal', 'heart', 'size', '.'], prediction: ['no', 'pleural', 'effusion', '.', 'normal', 'heart', 'size', '.'] },
  disjoint: { reference: ['large', 'right', 'pneumothorax'], prediction: ['small', 'left', 'effusion'] },
  partial: { reference: ['mild', 'edema', 'with', 'bilateral', 'lower', 'lobe', 'atelectasis', '.'], prediction: ['mild', '[UNK]', 'edema', '.'] },
};

test('onnx BERTScore through scoreReports: bertScoreF1 of the table rows; identical reports 1; disjoint vocabularies the value worked out from the vectors', async () => {
  const results = await scoreReports(PAIRS, { metrics: ['bertscore'], backend: backend({ bertscore: plain }), resamples: 100 });
  const got = Object.fromEntries(results.studies.map((s) => [s.id, s.values.bertscore]));
  for (const p of PAIRS) assert.equal(got[p.id], bertScoreF1(rows(TOKENS[p.id]!.reference), rows(TOKENS[p.id]!.prediction)), p.id);
  assert.equal(got.same, 1);
  // By hand, without bertScoreF1: every predicted token's best cosine against the reference, and the other way round.
  const best = (from: Token[], to: Token[]) => from.map((a) => Math.max(...to.map((b) => cosine(row(a), row(b)))));
  const p = best(['small', 'left', 'effusion'], ['large', 'right', 'pneumothorax']);
  const r = best(['large', 'right', 'pneumothorax'], ['small', 'left', 'effusion']);
  const mean = (xs: number[]) => (xs[0]! + xs[1]! + xs[2]!) / 3;
  const f = (2 * mean(p) * mean(r)) / (mean(p) + mean(r));
  assert.ok(Math.abs(got.disjoint! - (f - BERTSCORE_BASELINE_F) / (1 - BERTSCORE_BASELINE_F)) < 1e-12);
  assert.ok(got.disjoint! < 0 && got.partial! > got.disjoint! && got.partial! < 1);
  assert.deepEqual(results.not_computed, {});
  assert.equal(results.settings.backend, `onnx (bertscore ${plain})`);
});

test('onnx reportEmbeddings and SembScore: the [CLS] vector of the last_hidden_state output (not the first output), padding masked, token types 0', async () => {
  const b = backend({ chexbert: contextual, batchSize: 2 });
  assert.equal(b.tokenEmbeddings, undefined);
  assert.deepEqual(await b.reportEmbeddings!(TEXTS.map((t) => t.text)), TEXTS.map((t) => clsVector(t.tokens)));
  const results = await scoreReports(PAIRS, { metrics: ['sembscore'], backend: b, resamples: 100 });
  for (const [i, p] of PAIRS.entries()) assert.equal(results.studies[i]!.values.sembscore, cosine(clsVector(TOKENS[p.id]!.reference), clsVector(TOKENS[p.id]!.prediction)), p.id);
  assert.ok(Math.abs(results.studies[0]!.values.sembscore! - 1) < 1e-12, 'identical reports: cosine 1 (to rounding)');
});

test('onnx model folders: missing files are named with the folder, all at once; an unloadable model fails only when a metric needs it', async () => {
  const cases = [
    { name: 'no tokenizer.json', omit: ['tokenizer.json'], message: /is missing tokenizer\.json: it needs model\.onnx and tokenizer\.json/ },
    { name: 'no model.onnx', omit: ['model.onnx'], message: /is missing model\.onnx: it needs/ },
    { name: 'neither', omit: ['model.onnx', 'tokenizer.json'], message: /is missing model\.onnx and tokenizer\.json/ },
  ];
  for (const c of cases) {
    const folder = writeTinyModelFolder(dir, `missing-${c.omit.join('-')}`, { omit: c.omit });
    assert.throws(() => new OnnxBackend({ bertscore: folder }), (e: unknown) => e instanceof CxrError && e.code === 'model-config' && e.message.startsWith(`BERTScore ONNX model folder ${folder} is missing`) && c.message.test(e.message), c.name);
  }
  assert.throws(() => new OnnxBackend({ chexbert: join(dir, 'nowhere') }), /^CxrError: SembScore \(CheXbert\) ONNX model folder .*nowhere: no such folder$/);
  const broken = writeTinyModelFolder(dir, 'broken');
  writeFileSync(join(broken, 'model.onnx'), 'not a model');
  const b = backend({ bertscore: broken });
  await assert.rejects(b.tokenEmbeddings!(['No effusion.']), new RegExp(`^CxrError: BERTScore ONNX model ${join(broken, 'model.onnx')}: onnxruntime cannot load it`));
  const badTokenizer = writeTinyModelFolder(dir, 'bad-tokenizer');
  writeFileSync(join(badTokenizer, 'tokenizer.json'), '{"model": ');
  await assert.rejects(backend({ bertscore: badTokenizer }).tokenEmbeddings!(['x']), /tokenizer\.json is not readable JSON/);
});

let service: Server;
let base = '';
const calls: string[] = [];
before(async () => {
  // A scoring service speaking the documented protocol, for the metrics without an ONNX folder: every CheXbert embedding is [1, 2].
  service = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push(req.url!);
      const { texts } = JSON.parse(body) as { texts: string[] };
      const reply = req.url === '/chexbert' ? { embeddings: texts.map(() => [1, 2]) } : req.url === '/bertscore' ? { embeddings: texts.map(() => [[1, 0]]) } : null;
      res.writeHead(reply ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(reply ?? { error: 'no such model' }));
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
after(() => service.close());

const jsonl = (pairs: typeof PAIRS) => {
  const file = join(tempDir(), 'pairs.jsonl');
  writeFileSync(file, pairs.map((p) => JSON.stringify(p)).join('\n'));
  return file;
};
type Out = { studies: Record<string, number | string>[]; not_computed: Record<string, string>; settings: { backend: string } };

test('cxrbench rrg score --onnx-bertscore/--onnx-chexbert: BERTScore and SembScore from the local models; with --service each metric without a folder goes to the service', async () => {
  const file = jsonl(PAIRS);
  const both = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bleu,bertscore,sembscore', '--onnx-bertscore', plain, '--onnx-chexbert', contextual, '--format', 'json']);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stderr, '');
  const out = JSON.parse(both.stdout) as Out;
  assert.deepEqual(out.not_computed, {});
  assert.equal(out.settings.backend, `onnx (bertscore ${plain}, chexbert ${contextual})`);
  for (const [i, p] of PAIRS.entries()) {
    const t = TOKENS[p.id]!;
    assert.equal(out.studies[i]!.bertscore, bertScoreF1(rows(t.reference), rows(t.prediction)), p.id);
    assert.equal(out.studies[i]!.sembscore, cosine(clsVector(t.reference), clsVector(t.prediction)), p.id);
  }

  calls.length = 0;
  const mixed = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bertscore,sembscore', '--onnx-bertscore', plain, '--service', base, '--format', 'json']);
  assert.equal(mixed.code, 0, mixed.stderr);
  const m = JSON.parse(mixed.stdout) as Out;
  assert.equal(m.settings.backend, `onnx (bertscore ${plain}) + service ${base}`);
  assert.equal(m.studies[1]!.bertscore, out.studies[1]!.bertscore, 'BERTScore from the ONNX model, not the service');
  for (const s of m.studies) assert.ok(Math.abs((s.sembscore as number) - 1) < 1e-12, 'SembScore from the service: its embeddings are all [1, 2]');
  assert.deepEqual(calls.sort(), ['/chexbert', '/chexbert']);

  const alone = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bertscore,sembscore', '--onnx-chexbert', contextual]);
  assert.equal(alone.code, 0, alone.stderr);
  assert.match(alone.stdout, /^bertscore\s+not computed/m);
  assert.match(alone.stdout, /^sembscore\s+\d\.\d{4}/m);
});

test('cxrbench rrg score --onnx-*: a file or missing path refused as a folder, missing model files named, and the model loaded only when a metric needs it', async () => {
  const file = jsonl(PAIRS);
  const notFolder = await runCli(['rrg', 'score', '--pred', file, '--onnx-bertscore', join(plain, 'model.onnx')]);
  assert.equal(notFolder.code, 2);
  assert.match(notFolder.stderr, /--onnx-bertscore .*model\.onnx: not a folder; give the folder holding model\.onnx and tokenizer\.json/);
  const nowhere = await runCli(['rrg', 'score', '--pred', file, '--onnx-chexbert', join(dir, 'nowhere')]);
  assert.equal(nowhere.code, 2);
  assert.match(nowhere.stderr, /--onnx-chexbert .*nowhere: no such folder/);
  const incomplete = writeTinyModelFolder(dir, 'cli-incomplete', { omit: ['tokenizer.json'] });
  const missing = await runCli(['rrg', 'score', '--pred', file, '--onnx-chexbert', incomplete]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`SembScore \\(CheXbert\\) ONNX model folder ${incomplete} is missing tokenizer\\.json`));
  const broken = writeTinyModelFolder(dir, 'cli-broken');
  writeFileSync(join(broken, 'model.onnx'), 'not a model');
  const lazy = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bleu', '--onnx-bertscore', broken]);
  assert.equal(lazy.code, 0, `BLEU alone never loads the BERTScore model: ${lazy.stderr}`);
  const needed = await runCli(['rrg', 'score', '--pred', file, '--metrics', 'bertscore', '--onnx-bertscore', broken]);
  assert.equal(needed.code, 2);
  assert.match(needed.stderr, /BERTScore ONNX model .*cli-broken\/model\.onnx: onnxruntime cannot load it/);
});
