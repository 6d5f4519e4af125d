import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { seededRandom } from '../src/core/seeded-random.js';
import { questionOf, startFakeOpenAI } from './helpers/fake-openai-server.js';
import { runCli } from './helpers/cli.js';
import { officialRecord, tempDir, writeOfficialDataset } from './helpers/records.js';

const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));
const demoImages = fileURLToPath(new URL('../examples/demo/deid_png', import.meta.url));
const demoImage = join(demoImages, readdirSync(demoImages, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.png'))!);
const QUESTIONS = 120;
const CONCURRENCY = 4;
const KILLS = 3;

function dataset(): string {
  const records: Record<string, unknown> = {};
  for (let i = 0; i < QUESTIONS; i++) {
    records[`k${String(i).padStart(3, '0')}`] = officialRecord({ question: `Question number ${i} about the effusion?`, study_id: `s${i % 40}`, ImagePath: ['../img/a.png'], ImageViewPosition: ['PA'] });
  }
  const root = writeOfficialDataset({ test: records });
  mkdirSync(join(root, 'img'));
  copyFileSync(demoImage, join(root, 'img', 'a.png'));
  return root;
}

/** Starts `cxrbench eval` and SIGKILLs it as soon as `when()` holds (polled every 5 ms); resolves when it is gone. */
function runAndKill(args: string[], when: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
    const poll = setInterval(() => when() && child.kill('SIGKILL'), 5);
    child.on('exit', () => (clearInterval(poll), resolve()));
  });
}

function lineCount(file: string): number {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    return 0;
  }
}

const outcomes = (dir: string) =>
  readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { questionId: string; status: string; predicted: string | null }).sort((a, b) => a.questionId.localeCompare(b.questionId));

test('kill and resume: SIGKILL at random points loses only in-flight requests; the resumed outcomes equal an uninterrupted run', { timeout: 120_000 }, async () => {
  const server = await startFakeOpenAI({ latencyMs: 30 });
  try {
    const data = dataset();
    const common = ['eval', '--data', data, '--model', 'openai:fake-model', '--endpoint', server.url, '--concurrency', String(CONCURRENCY), '--quiet'];
    const reference = join(tempDir(), 'reference');
    const clean = await runCli([...common, '--out', reference]);
    assert.equal(clean.code, 0, clean.stderr);
    const referenceRequests = server.requests.length;
    assert.equal(referenceRequests, QUESTIONS);

    const interrupted = join(tempDir(), 'interrupted');
    const random = seededRandom(2026);
    const journaledAfterKill: number[] = [];
    const journalFile = join(interrupted, 'predictions.jsonl');
    for (let k = 0; k < KILLS; k++) {
      // Kill at a random point of the run: once the journal has grown by a random 5–30 lines.
      const target = lineCount(journalFile) + 5 + Math.floor(random() * 25);
      await runAndKill([...common, '--out', interrupted], () => lineCount(journalFile) >= target);
      journaledAfterKill.push(lineCount(journalFile));
    }
    // The kills must have landed mid-run, or this test proves nothing.
    assert.ok(journaledAfterKill.every((n) => n > 0 && n < QUESTIONS), `journal sizes after kills: ${journaledAfterKill.join(', ')}`);
    const final = await runCli([...common, '--out', interrupted]);
    assert.equal(final.code, 0, final.stderr);
    assert.match(final.stdout, /complete: 120 of 120 questions answered/);

    assert.deepEqual(outcomes(interrupted), outcomes(reference));
    const journalLines = readFileSync(join(interrupted, 'predictions.jsonl'), 'utf8').trim().split('\n').filter((l) => l.trim() !== '');
    assert.equal(new Set(journalLines.map((l) => (JSON.parse(l) as { questionId: string }).questionId)).size, QUESTIONS);
    assert.equal(journalLines.length, QUESTIONS, 'no question journaled twice');
    const asked = new Map<string, number>();
    for (const r of server.requests.slice(referenceRequests)) asked.set(questionOf(r.text), (asked.get(questionOf(r.text)) ?? 0) + 1);
    const askedAgain = [...asked.values()].filter((n) => n > 1).length;
    assert.equal(asked.size, QUESTIONS);
    assert.ok(askedAgain <= KILLS * CONCURRENCY, `${askedAgain} questions were asked more than once; at most the in-flight ones may be`);
  } finally {
    await server.close();
  }
});
