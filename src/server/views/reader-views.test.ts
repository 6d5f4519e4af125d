import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readerHome, type StudyComposition } from './reader-views.js';

const study = { id: 's1', title: 'T', state: 'open' as const, allow_edits: 0, benchmark_id: 'b1', publish_scores: 1, published_at: null, closed_at: null };

/** The figures sentence of the publication notice on a start page, for a study of these cases and this minimum. */
function figures(cases: StudyComposition, minCell: number): string {
  const page = readerHome(study, { name: 'Dr A', submitted_at: null }, 0, cases, 1, minCell).text;
  return /only if you answered every case\. (.*?) Your answers case by case are never published\./.exec(page)![1]!.replaceAll('&#39;', "'");
}

const cases = [
  {
    name: 'fewer cases than the minimum: no accuracy at all, and the reader is told so with both numbers',
    cases: { total: 4, byTask: [['Presence Assessment', 4]] as const }, minCell: 10,
    says: 'It would show only how many cases you answered: the leaderboard shows no accuracy on fewer than 10 cases, and this study has 4.',
  },
  {
    name: 'no task reaches the minimum: overall only',
    cases: { total: 12, byTask: [['Presence Assessment', 6], ['Negation Assessment', 6]] as const }, minCell: 10,
    says: "It would show your accuracy overall; per-task figures appear only where a task has at least 10 of the study's cases, and no task has that many here.",
  },
  {
    name: 'some tasks reach it: named, in the order given',
    cases: { total: 25, byTask: [['Presence Assessment', 10], ['Negation Assessment', 3], ['Differential Diagnosis', 12]] as const }, minCell: 10,
    says: "It would show your accuracy overall, and per task where a task has at least 10 of the study's cases (here: Presence Assessment, Differential Diagnosis) — fewer would tell which hidden answers were right.",
  },
  {
    name: 'every task reaches it',
    cases: { total: 20, byTask: [['Presence Assessment', 10], ['Negation Assessment', 10]] as const }, minCell: 10,
    says: "It would show your accuracy overall, and per task where a task has at least 10 of the study's cases (here every task) — fewer would tell which hidden answers were right.",
  },
];

for (const c of cases) {
  test(`reader start page, what a published score would show: ${c.name}`, () => {
    assert.equal(figures(c.cases, c.minCell), c.says);
  });
}
