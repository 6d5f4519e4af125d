import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_BOARD_PORT, localBoardUrl } from '../../board/board-address.js';
import { CxrError } from '../../core/errors.js';
import { formatOfFileName, parsePredictions, repeatedIdsMessage } from '../../core/prediction-file.js';
import { addStudyModel } from '../../store/study-answers.js';
import { inviteAccount, inviteByLink } from '../../store/study-readers.js';
import { listStudies, publishRefusal, setStudyState, studyById, studyItems, type Study } from '../../store/studies.js';
import type { Store } from '../../store/connect.js';
import { createStudyFromSet } from '../../study/create-study.js';
import { lettersOn } from '../../study/model-answers.js';
import { answerFileLines, answerKeyLines, exportNames, studyReport } from '../../study/study-report.js';
import { httpUrl, nonBlank, wholeNumber } from '../option-parsers.js';
import { readTextFile } from '../read-text-file.js';
import { makeOutputFolder, writeTextAtomically } from '../write-output.js';
import { DATA_DIR_HELP, withStore } from './board.js';

async function existingStudy(store: Store, id: string): Promise<Study> {
  const study = await studyById(store, id);
  if (!study) throw new CxrError('not-found', `no study ${id} (cxrbench study list)`);
  return study;
}


/** `cxrbench study …`: create and run reader studies from the shell (the same store the board's pages use). */
export function registerStudy(program: Command): void {
  const study = program.command('study').description('reader studies: people read sampled cases in the board; compare them with each other and with models');
  study.command('create')
    .description('create a study (draft) from a question set on disk: a seeded sample, images stored with it')
    .argument('<data>', 'question set: ReXVQA folder, JSONL file or folder (e.g. a split of a generated set)')
    .requiredOption('--title <text>', 'title readers and results show', nonBlank('--title'))
    .option('--split <name>', 'only this split (default: every split)')
    .option('--n <count>', 'cases to draw', wholeNumber('--n', 1, 1_000_000), 200)
    .option('--mode <mode>', 'stratified (each task in proportion) | random', 'stratified')
    .option('--task <name>', 'only questions of this task')
    .option('--seed <n>', 'seed of the sample (recorded with the study), 0 to 2147483647', wholeNumber('--seed', 0, 2 ** 31 - 1), 0)
    .option('--publish-scores', 'readers\' scores may be published on the public leaderboard (readers are told before they start; default: not)', false)
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (data: string, opts: { title: string; split?: string; n: number; mode: string; task?: string; seed: number; publishScores: boolean; dataDir: string }) => {
      if (opts.mode !== 'stratified' && opts.mode !== 'random') throw new CxrError('bad-option', `--mode ${opts.mode}: expected stratified or random`);
      await withStore(opts.dataDir, async (store) => {
        const created = await createStudyFromSet(store, 'cli', { data, ...(opts.split ? { splits: [opts.split] } : {}), title: opts.title, plan: { mode: opts.mode as 'random', n: opts.n, task: opts.task ?? null, seed: opts.seed }, publishScores: opts.publishScores });
        process.stdout.write(`study ${created.study.id}: ${created.cases} case(s) drawn from ${created.pool} (${opts.mode}, seed ${opts.seed}), state draft\n`);
        const privately = publishRefusal(created.study);
        process.stdout.write(privately === null ? 'readers\' scores may be published when the study closes, if the host chooses so then\n' : `readers' scores stay private: ${privately}\n`);
        if (created.missing.length > 0) {
          process.stderr.write(`${created.missing.length} case(s) have missing images — readers cannot be invited until they are added (create the study again) or removed on the study's page:\n`);
          for (const m of created.missing.slice(0, 20)) process.stderr.write(`  ${m.questionId}: ${m.paths.join(', ')}\n`);
          if (created.missing.length > 20) process.stderr.write(`  … and ${created.missing.length - 20} more\n`);
          process.exitCode = 1;
        }
      });
    });

  study.command('list').description('the studies of the board').option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { dataDir: string }) => withStore(opts.dataDir, async (store) => {
      for (const s of await listStudies(store)) process.stdout.write(`${s.id}  ${s.state.padEnd(6)}  ${String(s.items).padStart(5)} cases  ${String(s.readers).padStart(3)} readers  ${s.title}\n`);
    }));

  study.command('invite')
    .description('invite a reader: prints a reading link (shown once; stored hashed), or adds a board account with --email')
    .argument('<study-id>')
    .option('--name <text>', 'how results name the reader (default: Reader k)', nonBlank('--name'))
    .option('--email <address>', 'invite this board account instead of making a link')
    .option('--url <base>', 'the board\'s public address (http or https), to print the whole link', httpUrl('--url'), localBoardUrl(DEFAULT_BOARD_PORT))
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (id: string, opts: { name?: string; email?: string; url: string; dataDir: string }) => withStore(opts.dataDir, async (store) => {
      const s = await existingStudy(store, id);
      if ((await studyItems(store, s.id)).some((i) => i.missing_images > 0)) throw new CxrError('conflict', 'some cases have missing images: settle that before inviting readers (see the study\'s page)');
      if (opts.email) {
        const reader = await inviteAccount(store, 'cli', s.id, opts.email, opts.name ?? '');
        process.stdout.write(`${reader.name}: ${opts.email} reads at ${opts.url}/read/${s.id} when signed in\n`);
        return;
      }
      const { reader, token } = await inviteByLink(store, 'cli', s.id, opts.name ?? '');
      process.stdout.write(`${reader.name}: ${opts.url}/r/${token}\n`);
    }));

  for (const [action, state] of [['open', 'open'], ['close', 'closed']] as const) {
    study.command(action).description(action === 'open' ? 'open a draft for reading' : 'close a study: answers freeze, readers see the reference').argument('<study-id>').option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
      .action(async (id: string, opts: { dataDir: string }) => withStore(opts.dataDir, async (store) => {
        await setStudyState(store, 'cli', (await existingStudy(store, id)).id, state);
        process.stdout.write(`study ${id} is ${state}\n`);
      }));
  }

  study.command('add-model')
    .description("add a model's answers on the study's cases (a run's rexrank-predictions.json, or any predictions file), read with the board's extractor")
    .argument('<study-id>')
    .requiredOption('--name <text>', 'the model\'s name in results', nonBlank('--name'))
    .requiredOption('--pred <file>', 'predictions: ReXrank JSON, JSONL {id, prediction} or CSV')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (id: string, opts: { name: string; pred: string; dataDir: string }) => withStore(opts.dataDir, async (store) => {
      const s = await existingStudy(store, id);
      const content = readTextFile(opts.pred, '--pred');
      const parsed = parsePredictions(content, formatOfFileName(opts.pred));
      const fileProblem = parsed.problems.find((p) => p.where === 'file');
      if (fileProblem) throw new CxrError('unreadable-file', `${opts.pred}: ${fileProblem.message}`);
      const repeated = repeatedIdsMessage(parsed.problems);
      if (repeated) throw new CxrError('unreadable-file', `${opts.pred}: ${repeated}`);
      const items = await studyItems(store, s.id);
      const letters = lettersOn(items, parsed.predictions);
      const covered = items.filter((i) => parsed.predictions.has(i.question_id)).length;
      if (covered === 0) throw new CxrError('bad-option', `${opts.pred}: none of the study's ${items.length} question ids is in the file (first id of the study: ${items[0]?.question_id})`);
      await addStudyModel(store, 'cli', s.id, opts.name, Object.fromEntries(letters));
      process.stdout.write(`${opts.name}: ${covered} of ${items.length} case(s) covered, ${[...letters.values()].filter((l) => l !== null).length} with a readable answer\n`);
    }));

  study.command('export')
    .description('write every rater\'s answers as {id, answer, confidence, seconds} files and the key {id, answer, task}, for `cxrbench agreement`')
    .argument('<study-id>')
    .requiredOption('--out <dir>', 'folder for the files')
    .option('--force', 'overwrite the files of an earlier export in that folder')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (id: string, opts: { out: string; force?: boolean; dataDir: string }) => withStore(opts.dataDir, async (store) => {
      const report = await studyReport(store, await existingStudy(store, id));
      makeOutputFolder(opts.out, '--out');
      const existing = ['key.jsonl', ...exportNames(report.raters)].filter((name) => existsSync(join(opts.out, name)));
      if (existing.length > 0 && !opts.force) throw new CxrError('output-exists', `${join(opts.out, existing[0]!)} exists${existing.length > 1 ? ` (and ${existing.length - 1} more of this export's files)` : ''}; pass --force to overwrite, or export to another folder`);
      await writeTextAtomically(join(opts.out, 'key.jsonl'), answerKeyLines(report.items));
      const files = exportNames(report.raters);
      for (const [i, rater] of report.raters.entries()) await writeTextAtomically(join(opts.out, files[i]!), answerFileLines(report.items, rater));
      process.stdout.write(`${report.raters.length + 1} file(s) in ${opts.out}: key.jsonl, ${files.join(', ')}\nCompare: cxrbench agreement ${join(opts.out, '*-*.jsonl')} --gold ${join(opts.out, 'key.jsonl')}\n`);
    }));
}
