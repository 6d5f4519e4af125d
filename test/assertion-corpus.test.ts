/**
 * The offline generator's reading of report sentences against people: the labelled corpus in
 * test/fixtures/assertion-corpus (650 sentences written and labelled blind to the rules; see its README).
 * Prints, per file, finding recall, precision, status and side agreement. Held-out was measured before any rule
 * was written against dev (recall 88.7%, status 87.6%, side 90.0%) and once after (93.3%, 91.3%, 94.7%); after the
 * fixes of a code review (written from its examples): status 92.4%.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { corpusFindingName } from './helpers/corpus-names.js';
import { assertFindings } from '../src/generate/assertion.js';

interface Gold { finding: string; status: string; side: string | null }
interface Item { id: string; style: string; sentence: string; findings: Gold[] }

function measure(file: string) {
  const items = readFileSync(new URL(`./fixtures/assertion-corpus/${file}.jsonl`, import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Item);
  let gold = 0, found = 0, predicted = 0, extra = 0, status = 0, side = 0, sided = 0, sidedRight = 0;
  for (const item of items) {
    const read = assertFindings(item.sentence).map((r) => ({ ...r, finding: corpusFindingName(r.finding) }));
    predicted += read.length;
    extra += read.filter((r) => !item.findings.some((g) => g.finding === r.finding)).length;
    for (const g of item.findings) {
      gold++;
      const candidates = read.filter((r) => r.finding === g.finding);
      const match = candidates.find((r) => r.side === g.side) ?? candidates[0];
      if (!match) continue;
      found++;
      if (match.status === g.status) status++;
      if (match.side === g.side) side++;
      if (match.side !== null) {
        sided++;
        if (match.side === g.side) sidedRight++;
      }
    }
  }
  const result = { items: items.length, recall: found / gold, precision: (predicted - extra) / predicted, status: status / found, side: side / found, sidePrecision: sidedRight / sided };
  process.stdout.write(`# assertion corpus ${file}: ${items.length} sentences, ${gold} findings — recall ${(100 * result.recall).toFixed(1)}%, precision ${(100 * result.precision).toFixed(1)}%, status ${(100 * result.status).toFixed(1)}%, side ${(100 * result.side).toFixed(1)}% (where a side is given: ${(100 * result.sidePrecision).toFixed(1)}%)\n`);
  return result;
}

// Issue #23 binds a side only through a finding's own phrase (its modifiers, a place phrase after it) and abstains
// where the old rules took the nearest side in the clause — "left effusion and atelectasis" gives the atelectasis
// none — so agreement counting an abstention as wrong fell (95.8 → 92.8% dev, 94.7 → 90.9% held-out) while a side
// given is right more often (95.0 → 97.2% dev, 94.8 → 98.0% held-out); both are held.
const FLOORS: Record<string, { recall: number; precision: number; status: number; side: number; sidePrecision: number }> = {
  dev: { recall: 0.96, precision: 0.97, status: 0.95, side: 0.92, sidePrecision: 0.97 },
  heldout: { recall: 0.92, precision: 0.97, status: 0.9, side: 0.9, sidePrecision: 0.96 },
};

for (const [file, floor] of Object.entries(FLOORS)) {
  test(`assertion corpus (${file}): findings found, their status (present / absent / uncertain) and side agree with the labels`, () => {
    const r = measure(file);
    for (const key of ['recall', 'precision', 'status', 'side', 'sidePrecision'] as const) assert.ok(r[key] >= floor[key], `${key} ${(100 * r[key]).toFixed(1)}% < ${100 * floor[key]}%`);
  });
}
