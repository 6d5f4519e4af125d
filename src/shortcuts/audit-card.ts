import { splitOrder, type AuditCell, type ShortcutAudit } from './audit.js';
import type { LimitOutcome } from './limit.js';

/** What a limit did, for the card: the share, how many questions went, and any guesser still over it. */
export interface LimitSummary {
  share: number;
  removed: number;
  over: LimitOutcome['over'];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pct0 = (x: number) => (100 * x).toFixed(0);

/** A cell: accuracy (interval), bold where even the interval's low end is above chance. */
function shown(c: AuditCell | undefined, chance: number): string {
  if (!c || c.n === 0) return '—';
  const text = `${pct(c.accuracy.value)} (${pct0(c.accuracy.lo)}–${pct0(c.accuracy.hi)}) n=${c.n}`;
  return c.accuracy.lo > chance ? `**${text}**` : text;
}

/** The card's section on blind guessers: per split, held-out per task, and what a limit removed. */
export function shortcutAuditMarkdown(audit: ShortcutAudit, limit: LimitSummary | null): string {
  if (audit.guessers.length === 0 || audit.questions === 0) return '## Blind guessers (shortcut audit)\n\nNo questions to audit.\n';
  const first = audit.guessers[0]!;
  const splits = splitOrder(Object.keys(first.splits));
  const heldOutName = first.heldOut.splits.join(' + ') || '(none)';
  const showHeldOut = first.heldOut.splits.length > 1;
  const tasks = Object.keys(first.heldOut.tasks);
  const fitted = audit.guessers.find((g) => g.learned)?.fittedOn;
  const how = fitted === 'cross-fit'
    ? 'The set has no train split, so learned guessers are cross-fitted: fitted on one half of the studies, scored on the other, and the other way round.'
    : 'Learned guessers are fitted on train and scored on the other splits; their train figure is cross-fitted (fitted on half of the train studies, scored on the other half).';
  const lines = [
    '## Blind guessers (shortcut audit)',
    '',
    `Could this set be passed without looking at the image? Each guesser answers from the question's wording alone. Chance is ${pct(audit.chance)}. Accuracy with its Wilson 95% interval (per question); **bold** where the interval lies wholly above chance. ${how}`,
    '',
    `| guesser | ${splits.join(' | ')}${showHeldOut ? ` | ${heldOutName} |` : ' |'} what it exploits |`,
    `|---|${splits.map(() => '---').join('|')}|${showHeldOut ? '---|' : ''}---|`,
    ...audit.guessers.map((g) => `| ${g.guesser} | ${splits.map((s) => shown(g.splits[s]?.all, audit.chance)).join(' | ')}${showHeldOut ? ` | ${shown(g.heldOut.all, audit.chance)}` : ''} | ${g.description} |`),
  ];
  if (tasks.length > 0) {
    lines.push('', `Per task, on ${heldOutName}:`, '', `| guesser | ${tasks.join(' | ')} |`, `|---|${tasks.map(() => '---').join('|')}|`);
    lines.push(...audit.guessers.map((g) => `| ${g.guesser} | ${tasks.map((t) => shown(g.heldOut.tasks[t], audit.chance)).join(' | ')} |`));
  }
  if (limit) {
    lines.push('', `Limit (\`--max-blind-accuracy ${limit.share}\`): ${limit.removed} question(s) removed because guessers answered them blind (each in \`rejections.jsonl\`, validator \`shortcuts\`, with the guessers and figures). ${limit.over.length === 0 ? `Every guesser is at or under ${pct(limit.share)} on every split.` : `Still over the limit: ${limit.over.map((o) => `${o.guesser} on ${o.split} ${pct(o.accuracy)}`).join('; ')}.`}`);
  }
  return `${lines.join('\n')}\n`;
}
