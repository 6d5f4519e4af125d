import { join } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_BOARD_PORT } from '../../board/board-address.js';
import { wholeNumber } from '../option-parsers.js';
import { DEMO_DATASET } from './demo-dataset.js';

/**
 * `cxrbench demo`: the main job on the bundled demo (demo-run.ts). Its work is loaded when the command runs:
 * it pulls in nearly every part of cxrbench, and every other command would start half a second later.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('the main job on the bundled demo: validate, describe, evaluate two baselines on the test split')
    .option('--data <dir>', 'use another dataset instead of the bundled demo', DEMO_DATASET)
    .option('--out <dir>', 'folder for the demo runs (emptied first when it is new, empty or an earlier demo\'s)', join('runs', 'demo'))
    .option('--board <dir>', 'also seed a local leaderboard (SQLite in <dir>; a board database already there is replaced) with the demo test split and the baseline runs')
    .option('--port <n>', 'the port you will serve the --board on (cxrbench serve --port): the printed links use it', wholeNumber('--port', 1, 65535), DEFAULT_BOARD_PORT)
    .action(async (opts: { data: string; out: string; board?: string; port: number }) => (await import('./demo-run.js')).runDemo(opts));
}
