import { GREEN_ERROR_CATEGORIES } from '../../src/rrg/green.js';

/** A reply in the format GREEN's judge writes (as in Stanford-AIMI/GREEN's own test responses), from its counts. */
export function greenReply(counts: { matched: string[]; significant: string[][]; insignificant?: string[][] }): string {
  const errors = (lists: string[][]) => GREEN_ERROR_CATEGORIES.map((name, i) => {
    const items = lists[i] ?? [];
    return `(${'abcdef'[i]}) ${name}: ${items.length}.${items.length ? ` ${items.join('; ')}.` : ''}`;
  }).join('\n');
  return [
    ':',
    'The candidate report is compared with the reference finding by finding.',
    '',
    '[Clinically Significant Errors]:',
    errors(counts.significant),
    '',
    '[Clinically Insignificant Errors]:',
    errors(counts.insignificant ?? []),
    '',
    '[Matched Findings]:',
    `${counts.matched.length}.${counts.matched.length ? ` ${counts.matched.join('; ')}.` : ''}`,
  ].join('\n');
}
