import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { createReviewQueue } from '../../review/create-queue.js';
import { exportVersion } from '../../review/export-version.js';
import { createReviewVersion, type VersionPolicy } from '../../review/version.js';
import { listReviewQueues } from '../../store/reviews.js';
import { nonBlank, wholeNumber } from '../option-parsers.js';
import { makeOutputFolder } from '../write-output.js';
import { DATA_DIR_HELP, withStore } from './board.js';

function policyOf(option: string, value: string): 'keep' | 'retire' {
  if (value !== 'keep' && value !== 'retire') throw new CxrError('bad-option', `${option} ${value}: expected keep or retire`);
  return value;
}

/** `cxrbench review …`: expert review of questions on the board (queues, versions of the bank, exports). */
export function registerReview(program: Command): void {
  const review = program.command('review').description('expert review of questions: reviewers rate, accept, edit or reject them in the board; versions of the reviewed bank export in the official layout');
  review.command('create')
    .description('make a review queue from a question set or a generated set\'s review-sample.jsonl; items are assigned round-robin to board accounts')
    .argument('<data>', 'question set (ReXVQA folder, JSONL file or folder) or review-sample.jsonl from `cxrbench generate`')
    .requiredOption('--title <text>', 'title reviewers see', nonBlank('--title'))
    .requiredOption('--reviewers <emails>', 'comma-separated emails of board accounts')
    .option('--per-item <n>', 'reviewers per question: 1, or 2 to measure their agreement', wholeNumber('--per-item', 1), 1)
    .option('--split <name>', 'only this split (default: every split)')
    .option('--seed <n>', 'seed of the round-robin order (recorded in the audit log)', wholeNumber('--seed', 0), 0)
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (data: string, opts: { title: string; reviewers: string; perItem: number; split?: string; seed: number; dataDir: string }) => {
      if (opts.perItem !== 1 && opts.perItem !== 2) throw new CxrError('bad-option', `--per-item ${opts.perItem}: expected 1 or 2`);
      await withStore(opts.dataDir, async (store) => {
        const created = await createReviewQueue(store, 'cli', {
          data, ...(opts.split ? { splits: [opts.split] } : {}), title: opts.title, reviewersPerItem: opts.perItem as 1 | 2, reviewers: opts.reviewers.split(','), seed: opts.seed,
        });
        process.stdout.write(`review queue ${created.queue.id}: ${created.items} question(s), ${opts.perItem} reviewer(s) each (${Object.entries(created.loads).map(([e, n]) => `${e} ${n}`).join(', ')})\n`);
        process.stdout.write(`reviewers open /reviews on the board; the report is at /reviews/${created.queue.id}/report\n`);
        if (created.missing.length > 0) {
          process.stderr.write(`${created.missing.length} question(s) have missing images (reviewers will see a placeholder; add the files and create the queue again to show them):\n`);
          for (const m of created.missing.slice(0, 20)) process.stderr.write(`  ${m.questionId}: ${m.paths.join(', ')}\n`);
          if (created.missing.length > 20) process.stderr.write(`  … and ${created.missing.length - 20} more\n`);
        }
      });
    });

  review.command('list').description('the review queues of the board').option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { dataDir: string }) => withStore(opts.dataDir, async (store) => {
      for (const q of await listReviewQueues(store)) process.stdout.write(`${q.id}  ${String(q.items).padStart(5)} questions  ${String(q.decisions).padStart(5)}/${q.assignments} decisions  ${q.title}\n`);
    }));

  review.command('version')
    .description('make the next version of the question bank from a queue\'s decisions as they stand')
    .argument('<queue-id>')
    .option('--include-disputed', 'include disputed questions not adjudicated, as queued (by default they stay out until an admin adjudicates them; the version records the choice)')
    .option('--pending <policy>', 'questions not yet decided by all their reviewers: retire (leave them out) | keep (include them as queued); the version records the choice', 'retire')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (id: string, opts: { includeDisputed?: boolean; pending: string; dataDir: string }) => {
      const policy: VersionPolicy = { disputed: opts.includeDisputed === true ? 'keep' : 'retire', pending: policyOf('--pending', opts.pending) };
      await withStore(opts.dataDir, async (store) => {
        const { version, summary } = await createReviewVersion(store, 'cli', id, policy);
        const c = summary.counts;
        const disputed = policy.disputed === 'keep' ? 'included (--include-disputed)' : 'left out';
        process.stdout.write(`version ${version.number} of queue ${id}: ${summary.included} question(s) included, ${summary.retired} left out (accepted ${c.accepted}, edited ${c.edited}, rejected ${c.retired}, disputed ${c.disputed} → ${disputed}, pending ${c.pending} → ${policy.pending === 'keep' ? 'kept' : 'left out'})\n`);
        for (const r of summary.reasons.filter((x) => x.items > 0)) process.stdout.write(`  ${r.label}: ${r.items} (${(100 * r.share).toFixed(1)}% of ${summary.reviewed} reviewed)\n`);
        process.stdout.write(`export it: cxrbench review export ${id} --version ${version.number} --out <dir>\n`);
      });
    });

  review.command('export')
    .description('write a version as a question set in the official layout (metadata/<split>_vqa_data.json, images, review-version.json)')
    .argument('<queue-id>')
    .requiredOption('--version <n>', 'the version to export', wholeNumber('--version', 1))
    .requiredOption('--out <dir>', 'output folder')
    .option('--force', 'overwrite an earlier export in that folder')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (id: string, opts: { version: number; out: string; force?: boolean; dataDir: string }) => withStore(opts.dataDir, async (store) => {
      makeOutputFolder(opts.out, '--out');
      const { files, written } = await exportVersion(store, id, opts.version, opts.out, { force: opts.force === true });
      const count = [...files.splits.values()].reduce((s, r) => s + r.length, 0);
      process.stdout.write(`version ${opts.version}: ${count} question(s), ${files.images.length} image(s) → ${opts.out}\n${written.map((f) => `  ${f}\n`).join('')}`);
      if (files.rewritten.length > 0) process.stdout.write(`${files.rewritten.length} image path(s) pointed outside the folder and now point to its images/ copy (listed in review-version.json)\n`);
      if (files.missingImages.length > 0) process.stderr.write(`${files.missingImages.length} image(s) were missing when the queue was made; their paths are kept as they were\n`);
      process.stdout.write(`check it: cxrbench data validate ${opts.out}\n`);
    }));
}
