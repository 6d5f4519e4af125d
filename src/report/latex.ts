import { TASK_NAMES } from '../core/question.js';
import { NO_SPREAD_NOTE, NO_SPREAD_OVERALL_NOTE, type MethodEstimate } from '../score/intervals.js';
import { cellInterval, overallInterval, type CellResult, type Results } from '../score/results.js';

/** Escapes text for LaTeX. */
export function latexEscape(text: string): string {
  return text.replace(/[\\{}&%$#_^~]/g, (c) => ({ '\\': '\\textbackslash{}', '{': '\\{', '}': '\\}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '^': '\\^{}', '~': '\\~{}' })[c]!);
}

const SHORT: Record<string, string> = {
  'Presence Assessment': 'Presence',
  'Negation Assessment': 'Negation',
  'Differential Diagnosis': 'Differential',
  'Location and Distribution Assessment': 'Location',
  'Geometric Information Assessment': 'Geometric',
};

const pct = (x: number) => (100 * x).toFixed(1);
const withCi = (c: { value: number; lo: number; hi: number }) => `${pct(c.value)} {\\scriptsize [${pct(c.lo)}, ${pct(c.hi)}]}`;
/** Table 2's cells: the study-bootstrap interval, $^\dagger$ where Wilson's stands in for one without spread. */
const studyCi = (e: MethodEstimate) => `${withCi(e)}${e.method === 'study-bootstrap' ? '' : '$^{\\dagger}$'}`;

/**
 * Booktabs tables ready to paste into a paper: the layout of the paper's Table 2 (a model per row: ReXrank
 * overall, micro accuracy, the five tasks, each with its 95% interval) and of Table 3 (a row per category with n).
 * Needs \usepackage{booktabs}.
 */
export function resultsLatex(rows: { model: string; results: Results }[]): string {
  const tasks = TASK_NAMES.filter((t) => rows.some((r) => r.results.byTask[t]));
  const table2 = [
    '% Table 2 layout: accuracy (%) with 95% intervals (study bootstrap); requires \\usepackage{booktabs}',
    '\\begin{table}[t]',
    '\\centering',
    `\\begin{tabular}{l${'c'.repeat(2 + tasks.length)}}`,
    '\\toprule',
    `Model & Overall & Micro & ${tasks.map((t) => SHORT[t] ?? latexEscape(t)).join(' & ')} \\\\`,
    '\\midrule',
    ...rows.map(({ model, results }) => {
      const cells = tasks.map((t) => (results.byTask[t] ? studyCi(cellInterval(results.byTask[t]!)) : '--'));
      return `${latexEscape(model)} & ${studyCi(overallInterval(results.rexrankOverall, results.byTask))} & ${studyCi(cellInterval(results.overall))} & ${cells.join(' & ')} \\\\`;
    }),
    '\\bottomrule',
    '\\end{tabular}',
    `\\caption{Accuracy per task with 95\\% study-bootstrap intervals. Overall is the mean of the task accuracies (ReXrank); Micro is over all questions. ${latexEscape(NO_SPREAD_NOTE).replace('†', '$^{\\dagger}$')} (${NO_SPREAD_OVERALL_NOTE}).}`,
    '\\end{table}',
  ];
  const categoryRow = (name: string, c: CellResult) => `${latexEscape(name)}${c.small ? '$^{*}$' : ''} & ${c.n} & ${withCi(c.accuracy)} & ${c.unparseable} & ${c.truncated ?? 0} \\\\`;
  const table3 = rows.flatMap(({ model, results }) => [
    '',
    `% Table 3 layout: per-category accuracy of ${model.replace(/\n/g, ' ')} (Wilson 95% intervals; * fewer than ${results.settings.smallCell} questions)`,
    '\\begin{table}[t]',
    '\\centering',
    '\\begin{tabular}{lrcrr}',
    '\\toprule',
    'Category & $n$ & Accuracy (\\%) & Unparseable & Truncated \\\\',
    '\\midrule',
    ...Object.entries(results.byCategory).map(([name, c]) => categoryRow(name, c)),
    '\\bottomrule',
    '\\end{tabular}',
    `\\caption{${latexEscape(model)}: accuracy per category.}`,
    '\\end{table}',
  ]);
  return [...table2, ...table3].join('\n') + '\n';
}
