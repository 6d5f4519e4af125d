/**
 * Benchmarks for question generation (issue #12):
 * 1. the offline pipeline — corpus import → generate → check → write — on the IU X-ray reports (read at run time
 *    from ../shared/data or CXRBENCH_IU_REPORTS, never copied), repeated 10× under new ids (38,260 reports), against
 *    the floor of 1,000 reports/s;
 * 2. the diversity filter on 600,000 questions against the limits of 60 s and 1 GB.
 * Run: `./run bench:generate` (`-- pipeline` or `-- diversity` for one part).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCorpus } from '../src/corpus/import-corpus.js';
import { diversityFilter, diversityText } from '../src/generate/check/diversity.js';
import { LEXICON, optionLabel } from '../src/generate/lexicon.js';
import { generateQuestionSet } from '../src/generate/pipeline.js';
import { DEFAULT_MAX_BLIND_ACCURACY } from '../src/cli/commands/generate.js';
import { seededRandom } from '../src/core/seeded-random.js';
import { iuReportsDir } from '../test/helpers/shared-data.js';
import { GC_FLAGS } from '../bin/gc-flags.js';

async function diversityBench(): Promise<void> {
  // 600K question texts: template stems over the lexicon's options (many near-duplicates, as template output has).
  const random = seededRandom(5);
  const names = LEXICON.map(optionLabel);
  const stems = ['Which of the following findings is present on this chest radiograph?', 'Which of these findings is NOT seen on this chest X-ray?', 'Where is the {f} located?', 'How is the {f} graded in size or severity?', 'The {f} on this radiograph is most consistent with which diagnosis?'];
  const texts: string[] = [];
  for (let i = 0; i < 600_000; i++) {
    const pick = () => names[Math.floor(random() * names.length)]!;
    const options = [pick(), pick(), pick(), pick()];
    texts.push(diversityText(stems[i % stems.length]!.replace('{f}', pick().toLowerCase()), options));
  }
  const rssBefore = process.memoryUsage().rss;
  const t3 = performance.now();
  const verdicts = diversityFilter(texts, { threshold: 0.9 });
  const t4 = performance.now();
  const peak = process.resourceUsage().maxRSS * 1024;
  const kept = verdicts.filter((v) => v.kept).length;
  process.stdout.write(`diversity filter: ${texts.length} questions → ${kept} kept in ${((t4 - t3) / 1000).toFixed(1)} s (${((t4 - t3) / 60_000).toFixed(2)}× the 60 s limit); peak RSS ${(peak / 2 ** 20).toFixed(0)} MB (${(peak / 2 ** 30).toFixed(2)}× the 1 GB limit; ${(rssBefore / 2 ** 20).toFixed(0)} MB before the filter)\n`);
}

async function pipelineBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cxrbench-bench-generate-'));
  try {
  const iu = iuReportsDir();
  const csv = readFileSync(join(iu, 'indiana_reports.csv'), 'utf8');
  const [header, ...rest] = csv.split('\n');
  // Repeat the corpus under new ids: uid is the first column.
  const copies = 10;
  const body = Array.from({ length: copies }, (_, k) => rest.join('\n').replace(/^(\d+),/gm, (_m, uid: string) => `${k}-${uid},`)).join('\n');
  writeFileSync(join(dir, 'reports.csv'), `${header}\n${body}`);
  const projections = readFileSync(join(iu, 'indiana_projections.csv'), 'utf8').split('\n');
  writeFileSync(join(dir, 'images.csv'), `${projections[0]}\n${Array.from({ length: copies }, (_, k) => projections.slice(1).filter(Boolean).map((l) => `${k}-${l}`).join('\n')).join('\n')}\n`);

  const t0 = performance.now();
  const imported = await importCorpus(join(dir, 'reports.csv'), 'csv', {}, join(dir, 'corpus.jsonl'), join(dir, 'images.csv'));
  const t1 = performance.now();
  const card = await generateQuestionSet({ corpus: join(dir, 'corpus.jsonl'), out: join(dir, 'set'), seed: 0, similarity: 0.9, reviewRate: 0.1, splits: { train: 0.8, valid: 0.1, test: 0.1 }, maxBlindAccuracy: Number(process.env.MAXB ?? DEFAULT_MAX_BLIND_ACCURACY) });
  const t2 = performance.now();
  const rate = imported.reports / ((t2 - t0) / 1000);
  const q = card.json as { questions: { generated: number; kept: number } };
  process.stdout.write(`offline pipeline: ${imported.reports} reports (${imported.rejected} rejected) → ${q.questions.generated} generated, ${q.questions.kept} kept\n`);
  process.stdout.write(`  import ${((t1 - t0) / 1000).toFixed(2)} s, generate+check+write ${((t2 - t1) / 1000).toFixed(2)} s, total ${((t2 - t0) / 1000).toFixed(2)} s = ${Math.round(rate)} reports/s (${(rate / 1000).toFixed(2)}× the 1,000 reports/s floor)\n`);

  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each part in a process of its own with the garbage-collector settings `cxrbench generate` runs with
// (bin/gc-flags.js), so its speed and peak memory are what a user's command gets.
const part = (name: string) => execFileSync(process.execPath, [...GC_FLAGS, '--import', 'tsx', fileURLToPath(import.meta.url), `${name}-part`], { encoding: 'utf8' });
if (process.argv[2] === 'diversity-part') await diversityBench();
else if (process.argv[2] === 'pipeline-part') await pipelineBench();
else if (process.argv[2] === 'diversity' || process.argv[2] === 'pipeline') process.stdout.write(part(process.argv[2]));
else process.stdout.write(part('pipeline') + part('diversity'));
