import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { extractAnswer } from '../src/extract/extract.js';

/**
 * The labelled corpus of realistic model outputs (test/fixtures/extraction-corpus/README.md): what a careful
 * person reads from each output, written and labelled without sight of the extraction rules, each label
 * confirmed by a second, blind reader. The reader must agree with people, and never invent a letter.
 */
const STYLES = [
  'bare-letter', 'answer-is', 'markdown', 'boxed', 'json', 'python-dict', 'xml-tag', 'final-answer', 'special-token', 'cot-discussion',
  'conclusion-first', 'self-correction', 'think-block', 'informal', 'mid-sentence', 'rather-than', 'echoed-prompt', 'option-text', 'ordinal',
  'multilingual', 'full-width', 'refusal', 'hedge', 'multiple', 'none-of-above', 'out-of-range', 'empty', 'truncated',
] as const;
const Item = z.strictObject({
  id: z.string().regex(/^[a-z]{3}-\d{3}$/),
  style: z.enum(STYLES),
  family: z.string().min(1),
  question: z.string().min(1),
  options: z.array(z.string().min(1)).length(4),
  output: z.string(),
  gold: z.enum(['A', 'B', 'C', 'D']).nullable(),
  note: z.string().min(1),
});
type Item = z.infer<typeof Item>;

const DIR = join(import.meta.dirname, 'fixtures', 'extraction-corpus');
const items: Item[] = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort().flatMap((file) =>
  readFileSync(join(DIR, file), 'utf8').split('\n').filter((line) => line.trim() !== '').map((line, i) => {
    const parsed = Item.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    return parsed.data;
  }));

test('extraction corpus: at least 600 labelled outputs, unique ids, every style, both sides (letters and no single answer)', () => {
  assert.ok(items.length >= 600, `${items.length} items`);
  assert.equal(new Set(items.map((i) => i.id)).size, items.length);
  for (const style of STYLES) assert.ok(items.filter((i) => i.style === style).length >= 5, `style ${style} has fewer than 5 items`);
  assert.ok(items.filter((i) => i.gold === null).length >= 100);
  assert.ok(new Set(items.map((i) => i.family)).size >= 10);
});

test('extraction corpus: the reader agrees with people on ≥ 99.5% and invents no letter on an output without one', (t) => {
  const rows = new Map<string, { n: number; agree: number; invented: number; missed: number; other: number }>();
  const disagreements: string[] = [];
  for (const item of items) {
    const got = extractAnswer(item.output, item.options);
    const row = rows.get(item.style) ?? { n: 0, agree: 0, invented: 0, missed: 0, other: 0 };
    row.n++;
    if (got.letter === item.gold) row.agree++;
    else {
      if (item.gold === null) row.invented++;
      else if (got.letter === null) row.missed++;
      else row.other++;
      disagreements.push(`${item.id} (${item.style}): person ${item.gold ?? 'none'}, reader ${got.letter ?? 'none'} [${got.rule}]`);
    }
    rows.set(item.style, row);
  }
  const total = [...rows.values()].reduce((a, r) => ({ n: a.n + r.n, agree: a.agree + r.agree, invented: a.invented + r.invented, missed: a.missed + r.missed, other: a.other + r.other }));
  t.diagnostic(`style                 n  agree%  invented  missed  other`);
  for (const [style, r] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    t.diagnostic(`${style.padEnd(18)} ${String(r.n).padStart(4)}  ${((100 * r.agree) / r.n).toFixed(1).padStart(6)}  ${String(r.invented).padStart(8)}  ${String(r.missed).padStart(6)}  ${String(r.other).padStart(5)}`);
  }
  t.diagnostic(`all                ${String(total.n).padStart(4)}  ${((100 * total.agree) / total.n).toFixed(2).padStart(6)}  ${String(total.invented).padStart(8)}  ${String(total.missed).padStart(6)}  ${String(total.other).padStart(5)}`);
  for (const d of disagreements) t.diagnostic(d);
  assert.equal(total.invented, 0, `letters invented on outputs with no single answer:\n${disagreements.join('\n')}`);
  assert.ok(total.agree / total.n >= 0.995, `agreement ${((100 * total.agree) / total.n).toFixed(2)}% < 99.5%:\n${disagreements.join('\n')}`);
});
