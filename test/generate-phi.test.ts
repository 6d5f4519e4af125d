/**
 * Nothing under generate's output folder contains an identifier (issue #12): reports made from the planted-PHI
 * corpus (test/fixtures/phi-corpus, every identifier labelled) go through import → generate, and every labelled
 * identifier is searched for in every output file. The corpus texts stand as findings, next to a sentence about
 * the film, so questions are made from every report.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

const FINDINGS = ['Small left pleural effusion.', 'Right lower lobe consolidation.', 'No pneumothorax. Mild cardiomegaly.', 'Right upper lobe nodule.', 'Large right pleural effusion. No consolidation.'];

function corpusItems(): { text: string; identifiers: string[] }[] {
  return ['dev', 'heldout'].flatMap((file) => readFileSync(new URL(`./fixtures/phi-corpus/${file}.jsonl`, import.meta.url), 'utf8').trim().split('\n').map((line) => {
    const { marked } = JSON.parse(line) as { marked: string };
    const identifiers = [...marked.matchAll(/\[\[[a-z_0-9]+:(.*?)\]\]/g)].map((m) => m[1]!);
    return { text: marked.replace(/\[\[[a-z_0-9]+:(.*?)\]\]/g, '$1'), identifiers };
  }));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

test('planted PHI: no labelled identifier reaches any file under the output folder; the card lists reports with identifiers by id and kind only', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const items = corpusItems();
  const rows = items.map((item, i) => ({ id: `study-${i}`, patient: `patient-${i}`, indication: item.text, findings: `${FINDINGS[i % FINDINGS.length]} ${item.text}`, impression: item.text, images: [`img/${i}.png`] }));
  writeFileSync(join(dir, 'reports.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const corpus = join(dir, 'corpus.jsonl');
  assert.equal((await runCli(['corpus', 'import', join(dir, 'reports.jsonl'), '--format', 'jsonl', '--out', corpus])).code, 0);
  const out = join(dir, 'out');
  const run = await runCli(['generate', corpus, '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { questions: { kept: number }; phi: { reportsWithIdentifiers: number } };
  assert.ok(card.questions.kept > 100, `${card.questions.kept} questions kept`);
  assert.ok(card.phi.reportsWithIdentifiers > 200);
  const outputs = filesUnder(out).map((f) => ({ file: f, text: readFileSync(f, 'utf8').toLowerCase() }));
  // Short generic values ("IN", "9O") would match ordinary words; every identifier of 4+ characters is searched for.
  const leaks: string[] = [];
  for (const item of items) {
    for (const id of item.identifiers) {
      const needle = id.toLowerCase();
      if (needle.replace(/\W/g, '').length < 4) continue;
      // As a whole token: a number inside a hexadecimal report id is not the identifier.
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u');
      for (const o of outputs) if (pattern.test(o.text)) leaks.push(`"${id}" in ${o.file.slice(out.length + 1)}`);
    }
  }
  assert.deepEqual(leaks.slice(0, 20), [], `${leaks.length} identifier(s) found in the output`);
  assert.doesNotMatch(run.stdout + run.stderr, /\d{3}-\d{2}-\d{4}/, 'nothing printed contains an identifier either');
});

test('review fixes: unlabelled surnames, dates and phone numbers in findings, an identifier in an image path, and reversible ids stay out of the output', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const rows = [
    { id: 'MRN123456', patient: 'Jane Doe', indication: 'Kowalski, cough and fever.', findings: 'Small left pleural effusion per kowalski. Mild cardiomegaly. Right lower lobe consolidation, Nowak. Left effusion, seen 12/25. Call 555-0101.', impression: 'Left effusion. Consolidation, J. Nowak.', images: ['k1.png'] },
    { id: 'k2', findings: 'Small left pleural effusion. Mild cardiomegaly.', images: ['/data/JohnSmith/2021-03-04_PA.png'] },
  ];
  writeFileSync(join(dir, 'r.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  assert.equal((await runCli(['corpus', 'import', join(dir, 'r.jsonl'), '--format', 'jsonl', '--out', join(dir, 'c.jsonl')])).code, 0);
  const out = join(dir, 'out');
  const run = await runCli(['generate', join(dir, 'c.jsonl'), '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const all = filesUnder(out).map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const id of ['Kowalski', 'kowalski', 'Nowak', '12/25', '555-0101', 'JohnSmith', '2021-03-04', 'MRN123456', 'Jane Doe']) assert.ok(!all.includes(id), `${id} reached the output`);
  const accounts = readFileSync(join(out, 'reports.jsonl'), 'utf8');
  assert.match(accounts, /an image path carries an identifier \(date\)/);
  // Ids are keyed with a secret kept beside the output: a plain sha256 of the MRN does not give them.
  const { createHash } = await import('node:crypto');
  assert.ok(!all.includes(createHash('sha256').update('MRN123456').digest('hex').slice(0, 16)));
  assert.ok(existsSync(`${out}.id-key`));
});
