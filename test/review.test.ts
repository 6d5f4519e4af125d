import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { detectLayout } from '../src/dataset/layout.js';
import { validateDataset } from '../src/dataset/validate.js';
import { checkQuestionSet } from '../src/generate/check/check-question-set.js';
import { reviewerAgreement } from '../src/review/agreement.js';
import { assignReviewers } from '../src/review/assign.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { saveDecision } from '../src/review/decision.js';
import { applyEdit, editableText } from '../src/review/edit.js';
import { exportVersion, splitFilesJson, versionFiles } from '../src/review/export-version.js';
import { queueState, statusCounts } from '../src/review/queue-state.js';
import { reviewReport } from '../src/review/review-report.js';
import { resolveItem } from '../src/review/status.js';
import { createReviewVersion } from '../src/review/version.js';
import { upsertReviewDecision, type ReviewDecision } from '../src/store/review-decisions.js';
import { reviewAssignments, reviewItems } from '../src/store/reviews.js';
import type { Store } from '../src/store/connect.js';
import { readCaseSet } from '../src/study/case-source.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';
import { officialRecord, tempDir } from './helpers/records.js';
import { decisionInput, generatedDemoSet, reviewAccounts } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

let generated = '';
before(async () => {
  generated = await generatedDemoSet();
});

/** Numbers rounded to 10 places, deep: float sums (0.6 − 0.2)/0.8 land a hair off the hand value. */
const rounded = (value: unknown): unknown =>
  typeof value === 'number' ? Number(value.toFixed(10)) : Array.isArray(value) ? value.map(rounded) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)])) : value;

const count = async (store: Store, table: 'review_decisions' | 'review_versions' | 'review_items' | 'review_queues') =>
  Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

test('assignReviewers: round-robin over a seeded order — loads differ by at most one, pairs rotate, never one reviewer twice on an item', () => {
  const three = assignReviewers(7, ['a', 'b', 'c'], 2, 0);
  assert.equal(three.length, 7);
  assert.ok(three.every((r) => r.length === 2 && r[0] !== r[1]));
  const load = (xs: string[][], who: string) => xs.filter((r) => r.includes(who)).length;
  assert.deepEqual(['a', 'b', 'c'].map((w) => load(three, w)).sort(), [4, 5, 5]);
  assert.equal(new Set(three.map((r) => [...r].sort().join('+'))).size, 3, 'all three pairs occur');
  assert.deepEqual(assignReviewers(7, ['a', 'b', 'c'], 2, 0), three, 'same seed, same assignment');
  assert.deepEqual(assignReviewers(5, ['a', 'b'], 2, 3), Array.from({ length: 5 }, () => assignReviewers(1, ['a', 'b'], 2, 3)[0]), 'two reviewers, two per item: both on every item');
  const single = assignReviewers(5, ['a', 'b'], 1, 0);
  assert.deepEqual(['a', 'b'].map((w) => load(single, w)).sort(), [2, 3]);
  assert.throws(() => assignReviewers(3, ['a'], 2), /2 reviewers per item needs at least 2 reviewers; 1 given/);
});

const original = officialRecord();
const edit = (o: Partial<{ question: string; options: string[]; answer: string; explanation: string }>) =>
  applyEdit(original, { question: 'Is there a pleural effusion?', options: ['Yes, small', 'Yes, large', 'No effusion', 'Cannot be determined'], answer: 'C', explanation: 'The findings state that there is no pleural effusion.', ...o }, { key: 'q1', split: 'test' });
const editCases: { name: string; result: ReturnType<typeof edit>; problems: { field: string; message: string }[] | null }[] = [
  { name: 'three options', result: edit({ options: ['Yes, small', 'Yes, large', 'No effusion'] }), problems: [{ field: 'edit_options', message: 'expected 4 options, found 3' }] },
  { name: 'an empty question', result: edit({ question: '   ' }), problems: [{ field: 'edit_question', message: 'question is empty' }] },
  { name: 'an empty option', result: edit({ options: ['Yes, small', '', 'No effusion', 'Cannot be determined'] }), problems: [{ field: 'edit_options', message: 'option B has a letter but no text' }] },
  { name: 'two options alike', result: edit({ options: ['Yes', 'yes', 'No effusion', 'Cannot be determined'] }), problems: [{ field: 'edit_options', message: 'options A and B have the same text "yes"' }] },
  { name: 'an answer outside A–D', result: edit({ answer: 'E' }), problems: [{ field: 'edit_answer', message: 'answer "E" is not one of A, B, C, D' }] },
  { name: 'an explanation too short to explain', result: edit({ explanation: 'No.' }), problems: [{ field: 'edit_explanation', message: 'explanation is 3 characters: "No."' }] },
  { name: 'nothing changed', result: applyEdit(original, editableText(original), { key: 'q1', split: 'test' }), problems: [{ field: 'decision', message: 'the edit changes nothing: choose Accept, or change the text' }] },
  { name: 'a good edit', result: edit({}), problems: null },
];
for (const c of editCases) {
  test(`applyEdit: ${c.name} ${c.problems ? 'is refused with the loader\'s reason' : 'gives the edited official record'}`, () => {
    if (c.problems) return assert.deepEqual(c.result, { problems: c.problems });
    assert.deepEqual(c.result, { record: { ...original, question: 'Is there a pleural effusion?' } });
  });
}

const row = (user: string, decision: 'accept' | 'edit' | 'reject', extra: Partial<ReviewDecision> = {}): ReviewDecision => ({
  queue_id: 'q', position: 0, user_id: user, adjudication: 0, clinical_quality: 4, explanation_clarity: 4, factual_correctness: 4, image_alignment: 4, difficulty: 'medium', category: 'c',
  decision, reason: decision === 'reject' ? 'several-valid-answers' : null, note: null, edited_json: decision === 'edit' ? JSON.stringify({ question: `edited by ${user}` }) : null, created_at: '2025-01-01', updated_at: '2025-01-01', ...extra,
});
const same = (question: string, order: 'qx' | 'xq') => JSON.stringify(order === 'qx' ? { question, task_name: 't' } : { task_name: 't', question });
const statusCases: { name: string; assigned: string[]; decisions: ReviewDecision[]; want: { status: string; question: string; reasons: string[]; adjudicated: boolean; dispute: string | null } }[] = [
  { name: 'no decision yet', assigned: ['a', 'b'], decisions: [], want: { status: 'pending', question: 'original', reasons: [], adjudicated: false, dispute: null } },
  { name: 'one of two decided', assigned: ['a', 'b'], decisions: [row('a', 'reject')], want: { status: 'pending', question: 'original', reasons: [], adjudicated: false, dispute: null } },
  { name: 'both accept', assigned: ['a', 'b'], decisions: [row('a', 'accept'), row('b', 'accept')], want: { status: 'accepted', question: 'original', reasons: [], adjudicated: false, dispute: null } },
  // An edit goes in only with every reviewer's consent: accept vs edit is a disagreement to adjudicate, not an edit.
  { name: 'edit and accept: a dispute, the original kept', assigned: ['a', 'b'], decisions: [row('a', 'edit'), row('b', 'accept')], want: { status: 'disputed', question: 'original', reasons: [], adjudicated: false, dispute: 'accept vs edit' } },
  { name: 'accept and edit, either order', assigned: ['a', 'b'], decisions: [row('a', 'accept', { updated_at: '2025-01-03' }), row('b', 'edit', { updated_at: '2025-01-02' })], want: { status: 'disputed', question: 'original', reasons: [], adjudicated: false, dispute: 'accept vs edit' } },
  // Neither edit wins by being the later one.
  { name: 'two different edits: a dispute, neither wins', assigned: ['a', 'b'], decisions: [row('a', 'edit', { updated_at: '2025-01-03' }), row('b', 'edit', { updated_at: '2025-01-02' })], want: { status: 'disputed', question: 'original', reasons: [], adjudicated: false, dispute: 'different edits' } },
  { name: 'two edits giving the same record (keys in another order)', assigned: ['a', 'b'], decisions: [row('a', 'edit', { edited_json: same('agreed edit', 'qx') }), row('b', 'edit', { edited_json: same('agreed edit', 'xq') })], want: { status: 'edited', question: 'agreed edit', reasons: [], adjudicated: false, dispute: null } },
  { name: 'a single reviewer who edits', assigned: ['a'], decisions: [row('a', 'edit')], want: { status: 'edited', question: 'edited by a', reasons: [], adjudicated: false, dispute: null } },
  { name: 'both reject', assigned: ['a', 'b'], decisions: [row('a', 'reject'), row('b', 'reject', { reason: 'hallucinated-finding' })], want: { status: 'retired', question: 'original', reasons: ['several-valid-answers', 'hallucinated-finding'], adjudicated: false, dispute: null } },
  { name: 'reject and edit', assigned: ['a', 'b'], decisions: [row('a', 'reject'), row('b', 'edit')], want: { status: 'disputed', question: 'original', reasons: ['several-valid-answers'], adjudicated: false, dispute: 'reject vs edit' } },
  { name: 'reject and accept', assigned: ['a', 'b'], decisions: [row('a', 'accept'), row('b', 'reject')], want: { status: 'disputed', question: 'original', reasons: ['several-valid-answers'], adjudicated: false, dispute: 'reject vs accept' } },
  { name: 'a dispute adjudicated', assigned: ['a', 'b'], decisions: [row('a', 'reject'), row('b', 'accept'), row('admin', 'edit', { adjudication: 1 })], want: { status: 'edited', question: 'edited by admin', reasons: [], adjudicated: true, dispute: null } },
  { name: 'different edits adjudicated: the admin\'s edit', assigned: ['a', 'b'], decisions: [row('a', 'edit'), row('b', 'edit'), row('admin', 'edit', { adjudication: 1 })], want: { status: 'edited', question: 'edited by admin', reasons: [], adjudicated: true, dispute: null } },
  { name: 'an adjudication settles even a pending item', assigned: ['a', 'b'], decisions: [row('admin', 'reject', { adjudication: 1, reason: 'other' })], want: { status: 'retired', question: 'original', reasons: ['other'], adjudicated: true, dispute: null } },
  { name: 'a single reviewer who rejects', assigned: ['a'], decisions: [row('a', 'reject', { reason: 'comparison-content' })], want: { status: 'retired', question: 'original', reasons: ['comparison-content'], adjudicated: false, dispute: null } },
];
for (const c of statusCases) {
  test(`resolveItem: ${c.name} → ${c.want.status}`, () => {
    const r = resolveItem(c.assigned, c.decisions, { question: 'original' });
    assert.deepEqual({ status: r.status, question: r.record.question, reasons: r.reasons, adjudicated: r.adjudicated, dispute: r.dispute }, c.want);
  });
}

test('reviewerAgreement: Cohen\'s kappa, exact agreement and mean absolute difference match a hand computation', () => {
  // Five items decided by both (item 5 only by a). Decisions a: accept edit reject reject reject; b: accept accept reject accept edit.
  // po = 2/5; a's margins (acc 1, edit 1, rej 3), b's (acc 3, edit 1, rej 1): pe = (1·3 + 1·1 + 3·1)/25 = 7/25; kappa = (0.4 − 0.28)/0.72 = 1/6.
  // Clinical quality a: 5 4 2 3 1, b: 5 4 3 3 2 — exact 3/5; pe = (1+1+2+1+0)/25 = 0.2; kappa = (0.6 − 0.2)/0.8 = 0.5; mean |Δ| = 2/5.
  const a = ['accept', 'edit', 'reject', 'reject', 'reject', 'accept'] as const;
  const b = ['accept', 'accept', 'reject', 'accept', 'edit'] as const;
  const qa = [5, 4, 2, 3, 1, 3];
  const qb = [5, 4, 3, 3, 2];
  const assignments = [0, 1, 2, 3, 4, 5].flatMap((position) => ['a', 'b'].map((user_id) => ({ queue_id: 'q', position, user_id })));
  const decisions = [
    ...a.map((d, position) => row('a', d, { position, clinical_quality: qa[position]! })),
    ...b.map((d, position) => row('b', d, { position, clinical_quality: qb[position]! })),
    row('admin', 'accept', { position: 3, adjudication: 1, clinical_quality: 1 }),
  ];
  const [pair, ...rest] = reviewerAgreement(assignments, decisions);
  assert.deepEqual(rest, []);
  // Both give every item the same difficulty and the same other ratings: expected agreement 1, kappa undefined (null), not 1.
  const same = { n: 5, kappa: null, exact: 1, meanAbsDiff: 0 };
  assert.deepEqual(rounded(pair), rounded({
    reviewers: ['a', 'b'], shared: 6, n: 5,
    decision: { n: 5, kappa: 1 / 6, exact: 0.4 },
    difficulty: { n: 5, kappa: null, exact: 1 },
    ratings: { clinical_quality: { n: 5, kappa: 0.5, exact: 0.6, meanAbsDiff: 0.4 }, explanation_clarity: same, factual_correctness: same, image_alignment: same },
  }));
});

test('reviewerAgreement: a rejection without ratings or difficulty counts in the decision\'s agreement and is left out of those it did not give', () => {
  // Items 0–3 decided by both. On item 2 a rejected without ratings or difficulty; on item 3 b did.
  // Decisions a: accept accept reject reject, b: accept accept accept reject — po 3/4, margins (2,2) and (3,1), pe 1/2 → kappa 1/2.
  // Clinical quality over items 0 and 1 only: a 5 3, b 5 4 — exact 1/2, pe (1·1 + 1·0 + 0·1)/4 = 1/4 → kappa 1/3, mean |Δ| 1/2.
  const unrated = { clinical_quality: null, explanation_clarity: null, factual_correctness: null, image_alignment: null, difficulty: null };
  const assignments = [0, 1, 2, 3].flatMap((position) => ['a', 'b'].map((user_id) => ({ queue_id: 'q', position, user_id })));
  const decisions = [
    row('a', 'accept', { position: 0, clinical_quality: 5 }), row('b', 'accept', { position: 0, clinical_quality: 5 }),
    row('a', 'accept', { position: 1, clinical_quality: 3, difficulty: 'hard' }), row('b', 'accept', { position: 1, clinical_quality: 4 }),
    row('a', 'reject', { position: 2, ...unrated }), row('b', 'accept', { position: 2, clinical_quality: 1 }),
    row('a', 'reject', { position: 3, clinical_quality: 2 }), row('b', 'reject', { position: 3, ...unrated }),
  ];
  const [pair] = reviewerAgreement(assignments, decisions);
  // The other three ratings are 4 throughout: their kappa is another test's matter (every rating alike), their n is this one's.
  const { clinical_quality, ...constant } = pair!.ratings;
  assert.deepEqual(rounded({ ...pair, ratings: { clinical_quality } }), rounded({
    reviewers: ['a', 'b'], shared: 4, n: 4,
    decision: { n: 4, kappa: 1 / 2, exact: 0.75 },
    // medium/hard vs medium/medium: po 1/2, pe (1·2 + 1·0)/4 = 1/2 → kappa 0.
    difficulty: { n: 2, kappa: 0, exact: 0.5 },
    ratings: { clinical_quality: { n: 2, kappa: 1 / 3, exact: 0.5, meanAbsDiff: 0.5 } },
  }));
  assert.deepEqual(Object.values(constant).map((r) => [r.n, r.exact, r.meanAbsDiff]), [[2, 1, 0], [2, 1, 0], [2, 1, 0]]);
});

for (const dialect of DIALECTS) {
  test(`review (${dialect}): a queue from the demo's valid split — two reviewers on every item, decisions, a refused edit, statuses, agreement, a version and its export`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    try {
      const who = await reviewAccounts(store, ['ana', 'ben', 'cy']);
      const created = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Demo valid', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'BEN@lab.org '] });
      assert.deepEqual({ items: created.items, loads: created.loads, missing: created.missing }, { items: 6, loads: { 'ana@lab.org': 6, 'ben@lab.org': 6 }, missing: [] });
      const queue = created.queue.id;
      const assignments = await reviewAssignments(store, queue);
      assert.deepEqual(assignments.map((a) => `${a.position}:${a.user_id === who.ana.id ? 'ana' : 'ben'}`).sort(), [0, 1, 2, 3, 4, 5].flatMap((p) => [`${p}:ana`, `${p}:ben`]));
      const items = await reviewItems(store, queue);
      assert.deepEqual(items.map((i) => i.question_id), ['demo_valid_031', 'demo_valid_032', 'demo_valid_033', 'demo_valid_034', 'demo_valid_035', 'demo_valid_036']);
      const firstRecord = JSON.parse(items[0]!.record_json) as Record<string, unknown>;
      assert.equal(firstRecord.correct_answer, 'B');
      assert.equal(firstRecord.correct_answer_explanation, JSON.parse(readFileSync(join(DEMO_DATASET, 'metadata', 'valid_vqa_data.json'), 'utf8')).demo_valid_031.correct_answer_explanation);
      assert.match(items[0]!.report_text ?? '', /Findings: /);

      const as = (u: typeof who.ana) => ({ id: u.id, email: u.email, isAdmin: u.is_admin === 1 });
      const decide = (u: typeof who.ana, position: number, input: Record<string, unknown>, adjudication = false) => saveDecision(store, as(u), queue, position, decisionInput(input), { adjudication });
      const editOf = (position: number, change: Partial<{ question: string; options: string[]; answer: string; explanation: string }>) => ({ ...editableText(JSON.parse(items[position]!.record_json) as Record<string, unknown>), ...change });

      // Broken edits are refused with the loader's reason, and nothing is written.
      const three = await decide(who.ana, 1, { decision: 'edit', edited: editOf(1, { options: ['Enlarged', 'Displaced', 'Normal'] }) });
      const blank = await decide(who.ana, 1, { decision: 'edit', edited: editOf(1, { question: '' }) });
      const noReason = await decide(who.ana, 1, { decision: 'reject', reason: null, clinical_quality: 9 });
      assert.deepEqual([three, blank, noReason], [
        { saved: false, problems: [{ field: 'edit_options', message: 'expected 4 options, found 3' }] },
        { saved: false, problems: [{ field: 'edit_question', message: 'question is empty' }] },
        { saved: false, problems: [{ field: 'clinical_quality', message: 'Clinical quality: from 1 to 5' }, { field: 'reason', message: 'Reason: a rejection needs a reason from the list' }] },
      ]);
      assert.equal(await count(store, 'review_decisions'), 0, 'no row half-saved');
      await assert.rejects(decide(who.cy, 0, {}), /item 1 of this queue is not assigned to you/);
      await assert.rejects(decide(who.ana, 0, {}, true), /not open to you for adjudication/);

      // 0 both accept; 1 both make the same edit → edited; 2 both reject → retired; 3 reject + accept → disputed; 4 only ana → pending;
      // 5 reject + edit → disputed, then adjudicated accept.
      const newOption = 'Normal in size and contour';
      const plan: [number, typeof who.ana, Record<string, unknown>][] = [
        [0, who.ana, { clinical_quality: 5 }], [0, who.ben, { clinical_quality: 5 }],
        [1, who.ana, { decision: 'edit', clinical_quality: 4, edited: editOf(1, { options: ['Enlarged', 'Displaced', newOption, 'Globular'] }) }], [1, who.ben, { decision: 'edit', clinical_quality: 4, edited: editOf(1, { options: ['Enlarged', 'Displaced', ` ${newOption} `, 'Globular'] }) }],
        [2, who.ana, { decision: 'reject', reason: 'several-valid-answers', clinical_quality: 2 }], [2, who.ben, { decision: 'reject', reason: 'several-valid-answers', clinical_quality: 3 }],
        [3, who.ana, { decision: 'reject', reason: 'hallucinated-finding', clinical_quality: 3 }], [3, who.ben, { clinical_quality: 3 }],
        [4, who.ana, {}],
        [5, who.ana, { decision: 'reject', reason: 'comparison-content', clinical_quality: 1 }], [5, who.ben, { decision: 'edit', clinical_quality: 2, edited: editOf(5, { question: 'Is there lung consolidation?' }) }],
      ];
      for (const [position, user, input] of plan) assert.deepEqual(await decide(user, position, input), { saved: true });
      // A later save replaces the earlier one.
      assert.deepEqual(await decide(who.ben, 0, { clinical_quality: 5, note: 'fine' }), { saved: true });
      assert.equal(await count(store, 'review_decisions'), 11);
      assert.deepEqual(statusCounts((await queueState(store, created.queue)).resolved), { accepted: 1, edited: 1, retired: 1, disputed: 2, pending: 1 });
      assert.deepEqual(await decide(who.admin, 5, { decision: 'accept' }, true), { saved: true });
      const state = await queueState(store, created.queue);
      assert.deepEqual(state.resolved.map((r) => r.status), ['accepted', 'edited', 'retired', 'disputed', 'pending', 'accepted']);

      const report = await reviewReport(store, created.queue);
      assert.deepEqual({ progress: report.progress, counts: report.counts, reviewed: report.reviewed, disputed: report.disputed.map((d) => [d.questionId, d.dispute]) }, {
        progress: { assigned: 12, decided: 11 }, counts: { accepted: 2, edited: 1, retired: 1, disputed: 1, pending: 1 }, reviewed: 6, disputed: [['demo_valid_034', 'reject vs accept']],
      });
      assert.deepEqual(report.reasons.map((r) => [r.reason, r.items, Number(r.share.toFixed(4))]), [
        ['several-valid-answers', 1, 0.1667], ['comparison-content', 1, 0.1667], ['clinical-validity', 0, 0], ['hallucinated-finding', 1, 0.1667], ['image-misalignment', 0, 0], ['other', 0, 0],
      ]);
      // As the hand computation above, but ben edits item 1 too: decisions ana A,E,R,R,R vs ben A,E,R,A,E — po 3/5, margins
      // (1,1,3) and (2,2,1), pe 7/25 → kappa (15 − 7)/18 = 4/9; clinical quality 5,4,2,3,1 vs 5,4,3,3,2 → 0.5.
      const [pair] = report.agreement;
      assert.deepEqual(rounded({ n: pair!.n, shared: pair!.shared, kappa: pair!.decision.kappa, cq: pair!.ratings.clinical_quality, names: [...pair!.names].sort() }), rounded({
        n: 5, shared: 6, kappa: 4 / 9, cq: { n: 5, kappa: 0.5, exact: 0.6, meanAbsDiff: 0.4 }, names: ['Ana', 'Ben'],
      }));

      // A version: disputed retired, pending kept. Then a second one numbers on.
      const v1 = await createReviewVersion(store, 'admin@lab.org', queue, { disputed: 'retire', pending: 'keep' });
      assert.deepEqual({ number: v1.version.number, included: v1.summary.included, retired: v1.summary.retired, items: v1.items.map((x) => [x.questionId, x.status, x.included]) }, {
        number: 1, included: 4, retired: 2,
        items: [['demo_valid_031', 'accepted', true], ['demo_valid_032', 'edited', true], ['demo_valid_033', 'retired', false], ['demo_valid_034', 'disputed', false], ['demo_valid_035', 'pending', true], ['demo_valid_036', 'accepted', true]],
      });
      assert.equal((await createReviewVersion(store, 'admin@lab.org', queue, { disputed: 'keep', pending: 'retire' })).version.number, 2);

      const out = join(tempDir(), 'reviewed');
      const { written } = await exportVersion(store, queue, 1, out);
      assert.deepEqual(written, [join(out, 'metadata', 'valid_vqa_data.json'), join(out, 'review-version.json')]);
      await assert.rejects(exportVersion(store, queue, 1, out), /exists; pass --force/);
      const back = await readCaseSet(out);
      assert.deepEqual(back.cases.map((c) => c.question.id), ['demo_valid_031', 'demo_valid_032', 'demo_valid_035', 'demo_valid_036']);
      assert.deepEqual(back.cases[0]!.record, firstRecord, 'the accepted question is exactly as queued');
      assert.deepEqual(back.cases[1]!.question.options, ['Enlarged', 'Displaced', newOption, 'Globular'], 'the edit is in the exported set');
      assert.ok(back.cases.every((c) => c.images.every((i) => i.file !== null)), 'the images are written with it');
      const validation = await validateDataset(detectLayout(out), { images: 'default' });
      assert.deepEqual(validation.errors, []);
      const manifest = JSON.parse(readFileSync(join(out, 'review-version.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual({ queue: (manifest.queue as { id: string }).id, version: manifest.version, accepted: manifest.accepted, edited: manifest.edited, retired: manifest.retired, keptUnsettled: manifest.keptUnsettled }, {
        queue, version: 1,
        accepted: [{ id: 'demo_valid_031', split: 'valid' }, { id: 'demo_valid_036', split: 'valid' }],
        edited: [{ id: 'demo_valid_032', split: 'valid', adjudicated: false, previous: editOf(1, {}), current: editOf(1, { options: ['Enlarged', 'Displaced', newOption, 'Globular'] }) }],
        retired: [{ id: 'demo_valid_033', split: 'valid', status: 'retired', reasons: ['several-valid-answers', 'several-valid-answers'] }, { id: 'demo_valid_034', split: 'valid', status: 'disputed', reasons: ['hallucinated-finding'], dispute: 'reject vs accept' }],
        keptUnsettled: [{ id: 'demo_valid_035', split: 'valid', status: 'pending' }],
      });
      // The download holds the same records as the folder; the folder loads as a board benchmark.
      const json = splitFilesJson(await versionFiles(store, queue, 1));
      assert.deepEqual(json, { 'metadata/valid_vqa_data.json': JSON.parse(readFileSync(join(out, 'metadata', 'valid_vqa_data.json'), 'utf8')) });
      const benchmark = await loadBenchmarkFromDataset(store, 'test', out, 'valid', { slug: 'reviewed', title: 'Reviewed', version: 'r1', dailyLimit: 1, totalLimit: 1, open: true });
      assert.equal(benchmark.item_count, 4);
    } finally {
      await store.close();
    }
  });

  test(`review (${dialect}): a queue from generate's review-sample.jsonl keeps the sample's extra fields; its export carries its images and passes data validate and check`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    try {
      await reviewAccounts(store, ['ana', 'ben']);
      const sample = readFileSync(join(generated, 'review-sample.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; split: string; evidence: unknown; difficulty: string });
      const created = await createReviewQueue(store, 'test', { data: join(generated, 'review-sample.jsonl'), title: 'Generated sample', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'ben@lab.org'], seed: 4 });
      assert.deepEqual({ items: created.items, missing: created.missing, loads: Object.values(created.loads).sort() }, { items: sample.length, missing: [], loads: [Math.floor(sample.length / 2), Math.ceil(sample.length / 2)] });
      assert.match(created.queue.source, /generated\/review-sample\.jsonl$/);
      const items = await reviewItems(store, created.queue.id);
      assert.deepEqual(items.map((i) => [i.question_id, i.split]), sample.map((s) => [s.id, s.split]));
      const record = JSON.parse(items[0]!.record_json) as Record<string, unknown>;
      assert.deepEqual({ evidence: record.evidence, difficulty: record.difficulty, hasAnswer: typeof record.correct_answer, hasReview: 'review' in record }, { evidence: sample[0]!.evidence, difficulty: sample[0]!.difficulty, hasAnswer: 'string', hasReview: false });
      await assert.rejects(createReviewQueue(store, 'test', { data: join(generated, 'review-sample.jsonl'), title: 'x', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'nobody@lab.org'] }), /no board account for nobody@lab\.org/);
      assert.equal(await count(store, 'review_queues'), 1, 'a refused queue leaves nothing behind');

      const assignments = await reviewAssignments(store, created.queue.id);
      const users = await store.db.selectFrom('users').select(['id', 'email', 'is_admin']).execute();
      for (const a of assignments) {
        const u = users.find((x) => x.id === a.user_id)!;
        assert.deepEqual(await saveDecision(store, { id: u.id, email: u.email, isAdmin: false }, created.queue.id, a.position, decisionInput()), { saved: true });
      }
      await createReviewVersion(store, 'admin@lab.org', created.queue.id, { disputed: 'keep', pending: 'keep' });
      const out = join(tempDir(), 'reviewed-sample');
      const { files } = await exportVersion(store, created.queue.id, 1, out);
      assert.ok(files.rewritten.length > 0 && files.rewritten.every((r) => /^\.\.\/images\/[0-9a-f]{64}\.png$/.test(r.to)), 'paths back to the corpus become the folder\'s own copies');
      assert.ok(files.images.every((i) => existsSync(join(out, i.target))));
      assert.deepEqual((await validateDataset(detectLayout(out), { images: 'default' })).errors, []);
      const check = await checkQuestionSet(out, 0.9);
      assert.deepEqual({ questions: check.questions, rejections: check.rejections }, { questions: sample.length, rejections: [] });
      const back = await readCaseSet(out);
      assert.deepEqual(back.cases.map((c) => c.question.id).sort(), sample.map((s) => s.id).sort());
      assert.ok(back.cases.every((c) => c.images.every((i) => i.file !== null)));
    } finally {
      await store.close();
    }
  });
}

for (const dialect of DIALECTS) {
  test(`review (${dialect}): two versions made at the same moment are numbered 1 and 2 — neither fails on the unique number`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    try {
      await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Concurrent versions', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      const policy = { disputed: 'keep', pending: 'keep' } as const;
      const made = await Promise.all([createReviewVersion(store, 'admin@lab.org', queue.id, policy), createReviewVersion(store, 'other-admin@lab.org', queue.id, policy)]);
      assert.deepEqual(made.map((v) => v.version.number).sort(), [1, 2]);
      const again = await Promise.all([1, 2, 3].map(() => createReviewVersion(store, 'admin@lab.org', queue.id, policy)));
      assert.deepEqual(again.map((v) => v.version.number).sort(), [3, 4, 5]);
      assert.equal(await count(store, 'review_versions'), 5);
      const audited = await store.db.selectFrom('audit_log').select('action').where('action', '=', 'review.version').execute();
      assert.equal(audited.length, 5);
    } finally {
      await store.close();
    }
  });

  test(`review (${dialect}): saving a decision checks the assignment and the item in its own transaction — one removed after the caller's check stores nothing`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    try {
      const who = await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Races', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      const ana = { id: who.ana.id, email: who.ana.email, isAdmin: false };
      const assignment = (position: number) => store.db.deleteFrom('review_assignments').where('queue_id', '=', queue.id).where('position', '=', position).where('user_id', '=', who.ana.id);
      const item = (position: number) => store.db.deleteFrom('review_items').where('queue_id', '=', queue.id).where('position', '=', position);
      /** The store, with `removal` run just before saveDecision's write transaction begins: after its own checks passed. */
      const racing = (removal: () => Promise<unknown>): Store => ({
        ...store,
        db: new Proxy(store.db, {
          get: (target, key) => (key === 'transaction'
            ? () => ({ execute: async (fn: Parameters<ReturnType<typeof store.db.transaction>['execute']>[0]) => {
              await removal();
              return target.transaction().execute(fn);
            } })
            : typeof Reflect.get(target, key) === 'function' ? (Reflect.get(target, key) as (...a: unknown[]) => unknown).bind(target) : Reflect.get(target, key)),
        }),
      });
      await assert.rejects(saveDecision(racing(() => assignment(0).execute()), ana, queue.id, 0, decisionInput()), /item 1 of this queue is not assigned to you/);
      await assert.rejects(saveDecision(racing(() => item(1).execute()), ana, queue.id, 1, decisionInput()), /the queue has no item 2/);
      assert.equal(await count(store, 'review_decisions'), 0, 'nothing stored for a removed assignment or item');

      // A removal in flight (its transaction not yet committed when the save checks): the save waits for it and refuses
      // (PostgreSQL: the checked rows are locked FOR SHARE; SQLite: one writer at a time).
      let deleted!: () => void;
      const started = new Promise<void>((resolve) => (deleted = resolve));
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => (commit = resolve));
      const removal = store.db.transaction().execute(async (tx) => {
        await tx.deleteFrom('review_assignments').where('queue_id', '=', queue.id).where('position', '=', 2).where('user_id', '=', who.ana.id).execute();
        deleted();
        await gate;
      });
      await started;
      const save = upsertReviewDecision(store, { id: ana.id, email: ana.email }, queue.id, 2, false, {
        clinical_quality: 4, explanation_clarity: 4, factual_correctness: 4, image_alignment: 4, difficulty: 'medium', category: 'Lung', decision: 'accept', reason: null, note: null, edited_json: null,
      }).then(() => 'stored', (error: Error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 300));
      commit();
      await removal;
      assert.equal(await save, 'item 3 of this queue is not assigned to you');
      assert.equal(await count(store, 'review_decisions'), 0);
      // Still assigned: saved as usual.
      assert.deepEqual(await saveDecision(store, ana, queue.id, 3, decisionInput()), { saved: true });
      assert.equal(await count(store, 'review_decisions'), 1);
    } finally {
      await store.close();
    }
  });
}
