/**
 * `cxrbench rrg score` on hostile inputs (issue #22): reports so long that ROUGE-L's work (the product of the two
 * lengths) ran for minutes, and files that are devices, FIFOs or larger than their limits — /dev/zero grew past
 * 3 GB. Each is refused naming the file (and study and field), exit 2; the runs have a heap cap and a time limit so
 * a limit that stops holding fails here instead of hanging the suite. And RadGraph's F1 in linear time.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sentenceBleu } from '../src/rrg/bleu.js';
import { rougeL } from '../src/rrg/rouge-l.js';
import { rexrankTokens, rougeTokens } from '../src/rrg/tokenize.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

/** What `rrg score` prints refusing `file` for reports too long: each problem as "<file>: study <id>: <field> is <n>". */
const refused = (file: string, problems: string[]) =>
  [`cxrbench: ${file}: ${problems.length} problem(s), nothing scored:`, ...problems.map((p) => `  ${p} characters long; a report may have at most 50,000 (real reports have fewer than 1,000 words)`)].join('\n') + '\n';

/** `cxrbench rrg score` with a 256 MB heap and a time limit (250 kB a side took 14–32 s before the limit, /dev/zero forever). */
function score(args: string[], timeoutMs = 60_000) {
  return runCli(['rrg', 'score', ...args], { timeoutMs, env: { NODE_OPTIONS: '--max-old-space-size=256' } });
}

/** Text of about `characters` characters in words of a radiology vocabulary, varied by a seed (so the LCS is not trivial). */
function reportText(characters: number, seed: number): string {
  const words = ['the', 'heart', 'size', 'is', 'normal', 'lungs', 'are', 'clear', 'no', 'pleural', 'effusion', 'or', 'pneumothorax', 'mild', 'atelectasis', 'left', 'base'];
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < characters; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const word = words[seed % words.length]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ').slice(0, characters);
}

const fifo = (path: string) => {
  execFileSync('mkfifo', [path]);
  return path;
};
/** A sparse file of `bytes` bytes (nothing written: instant). */
const sized = (path: string, bytes: number) => {
  closeSync(openSync(path, 'w'));
  execFileSync('truncate', ['-s', String(bytes), path]);
  return path;
};

test('rrg score: a report over 50,000 characters is refused naming the file, study and field (exit 2); 50,000 a side is scored', async () => {
  const dir = tempDir();
  const jsonl = join(dir, 'long.jsonl');
  writeFileSync(jsonl, [
    { id: 's1', prediction: reportText(250_000, 1), reference: reportText(250_000, 2) },
    { id: 's2', prediction: 'No acute findings.', reference: 'No acute cardiopulmonary process.' },
  ].map((r) => JSON.stringify(r)).join('\n'));
  const run = await score(['--pred', jsonl, '--metrics', 'bleu,rouge-l']);
  assert.deepEqual([run.code, run.stderr, run.stdout], [2, refused(jsonl, ['long.jsonl: study s1: prediction is 250,000', 'long.jsonl: study s1: reference is 250,000']), '']);

  // ReXrank's JSON with the references apart: each file named with its own field
  const preds = join(dir, 'preds.json');
  const refs = join(dir, 'refs.json');
  writeFileSync(preds, JSON.stringify({ a: { model_prediction: reportText(60_000, 3) }, b: { model_prediction: 'Normal.' } }));
  writeFileSync(refs, JSON.stringify({ a: { section_findings: 'Normal chest.' }, b: { section_findings: reportText(50_001, 4), section_impression: 'Normal.' } }));
  const apart = await score(['--pred', preds, '--ref', refs, '--track', 'findings', '--metrics', 'rouge-l']);
  assert.deepEqual([apart.code, apart.stderr], [2, refused(preds, ['preds.json: study a: model_prediction is 60,000', 'refs.json: study b: section_findings is 50,001'])]);
  const both = await score(['--pred', preds, '--ref', refs, '--metrics', 'rouge-l']);
  assert.match(both.stderr, /refs\.json: study b: the findings-impression reference built from section_findings and section_impression is 50,031 characters long;/);

  // at the limit, a side: scored (the bit-parallel LCS: about 0.1 s for the pair)
  const atLimit = join(dir, 'at-limit.jsonl');
  writeFileSync(atLimit, JSON.stringify({ id: 'edge', prediction: reportText(50_000, 5), reference: reportText(50_000, 6) }));
  const scored = await score(['--pred', atLimit, '--metrics', 'bleu,rouge-l', '--format', 'json'], 30_000);
  assert.equal(scored.code, 0, scored.stderr);
  const study = (JSON.parse(scored.stdout) as { studies: { id: string; rouge_l: number }[] }).studies;
  assert.deepEqual(study, [{ id: 'edge', bleu: sentenceBleu([rexrankTokens(reportText(50_000, 6))], rexrankTokens(reportText(50_000, 5))), rouge_l: rougeL(rougeTokens(reportText(50_000, 6)), rougeTokens(reportText(50_000, 5))) }]);
});

test('rrg score: --pred, --ref, the GREEN journal and model files that are devices, FIFOs, folders or over their limits are refused naming them, exit 2, unread', async () => {
  const dir = tempDir();
  const good = join(dir, 'good.jsonl');
  writeFileSync(good, JSON.stringify({ id: 's1', prediction: 'Normal.', reference: 'Normal.' }));
  const pipe = fifo(join(dir, 'pipe.json'));
  const big = sized(join(dir, 'big.json'), 128 * 1024 * 1024 + 1);
  const cases: [string[], string][] = [
    [['--pred', '/dev/zero'], '--pred /dev/zero: a character device, not a regular file: not read'],
    [['--pred', pipe], `--pred ${pipe}: a FIFO (named pipe), not a regular file: not read`],
    [['--pred', dir], `--pred ${dir}: a folder, not a file`],
    [['--pred', big], `--pred ${big}: 134,217,729 bytes, larger than the 128 MiB limit for a predictions or references file: not read`],
    [['--pred', good, '--ref', '/dev/urandom'], '--ref /dev/urandom: a character device, not a regular file: not read'],
  ];
  for (const [args, message] of cases) {
    const run = await score([...args, '--metrics', 'bleu'], 20_000);
    assert.deepEqual([run.code, run.stderr, run.stdout], [2, `cxrbench: ${message}\n`, ''], args.join(' '));
  }

  const journal = fifo(join(dir, 'journal.jsonl'));
  const green = await score(['--pred', good, '--green', 'openai:judge', '--green-endpoint', 'http://127.0.0.1:9/v1', '--green-journal', journal], 20_000);
  assert.deepEqual([green.code, green.stderr], [2, `cxrbench: --green-journal ${journal}: a FIFO (named pipe), not a regular file: not read\n`]);

  const model = join(dir, 'bert');
  mkdirSync(model);
  fifo(join(model, 'model.onnx'));
  writeFileSync(join(model, 'tokenizer.json'), '{}');
  const onnx = await score(['--pred', good, '--metrics', 'bertscore', '--onnx-bertscore', model], 20_000);
  assert.deepEqual([onnx.code, onnx.stderr], [2, `cxrbench: BERTScore ONNX model folder: ${join(model, 'model.onnx')}: a FIFO (named pipe), not a regular file: not read\n`]);
  const chexbert = join(dir, 'chexbert');
  mkdirSync(chexbert);
  writeFileSync(join(chexbert, 'model.onnx'), '');
  sized(join(chexbert, 'tokenizer.json'), 64 * 1024 * 1024 + 1);
  const json = await score(['--pred', good, '--metrics', 'sembscore', '--onnx-chexbert', chexbert], 20_000);
  assert.deepEqual([json.code, json.stderr], [2, `cxrbench: SembScore (CheXbert) ONNX model folder: ${join(chexbert, 'tokenizer.json')}: 67,108,865 bytes, larger than the 64 MiB limit for a model's JSON file: not read\n`]);
});

test('RadGraph F1 of graphs with 20,000 entities and relations takes linear time (each relation rebuilt every entity key: n² steps)', () => {
  const module = new URL('../src/rrg/model-metrics.ts', import.meta.url).href;
  // the candidate keeps every entity and 10,000 of the 19,999 relations: entity F1 1, relation F1 2·P·R/(P + R), P = 1
  const script = `
    import { radGraphCombined } from ${JSON.stringify(module)};
    const n = 20000;
    const entities = Array.from({ length: n }, (_, i) => ({ text: 'finding ' + i, label: 'OBS-DP' }));
    const relations = Array.from({ length: n - 1 }, (_, i) => ({ source: i, target: i + 1, type: 'located_at' }));
    process.stdout.write(String(radGraphCombined({ entities, relations }, { entities, relations: relations.filter((_, i) => i % 2 === 0) })));`;
  const relationF1 = (2 * 1 * (10_000 / 19_999)) / (1 + 10_000 / 19_999);
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000, killSignal: 'SIGKILL', encoding: 'utf8' });
  assert.equal(Number(out), (1 + relationF1) / 2);
});
