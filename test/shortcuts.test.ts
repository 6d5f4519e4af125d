/**
 * The shortcut audit (#23 item 6): blind guessers that answer from a question's wording alone, measured per split
 * and task with honest fitting, and the limit that removes what they answer until each is under a share.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LETTERS, TASK_NAMES, type Letter } from '../src/core/question.js';
import { seededRandom } from '../src/core/seeded-random.js';
import { auditShortcuts, type GuesserAudit } from '../src/shortcuts/audit.js';
import { shortcutAuditMarkdown } from '../src/shortcuts/audit-card.js';
import { BLIND_GUESSERS, oddOneOut, type BlindItem } from '../src/shortcuts/guessers.js';
import { limitBlindAccuracy } from '../src/shortcuts/limit.js';

const FINDINGS = ['pleural effusion', 'pneumothorax', 'cardiomegaly', 'atelectasis', 'consolidation', 'pulmonary oedema', 'rib fracture', 'hiatal hernia', 'emphysema', 'granuloma', 'scoliosis', 'nodule'];

/** A question set of `n` items per split whose options are built by `make` (given a random source and the item index). */
function set(n: number, make: (random: () => number, k: number) => { options: [string, string, string, string]; answer: Letter; text?: string }, seed = 1): BlindItem[] {
  const random = seededRandom(seed);
  return ['train', 'valid', 'test'].flatMap((split) => Array.from({ length: n }, (_, k) => {
    const made = make(random, k);
    return { id: `${split}-${k}`, split, studyId: `${split}-study-${Math.floor(k / 3)}`, task: TASK_NAMES[k % 5]!, text: made.text ?? 'What does this radiograph show?', options: made.options, answer: made.answer };
  }));
}

const shuffled = <T>(random: () => number, items: T[]): T[] => {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

/** Four distinct findings in random order, one the key at random: nothing in the wording tells which. */
const fair = (random: () => number) => {
  const options = shuffled(random, FINDINGS).slice(0, 4) as [string, string, string, string];
  return { options, answer: LETTERS[Math.floor(random() * 4)]! };
};

const held = (audit: { guessers: GuesserAudit[] }, name: string) => audit.guessers.find((g) => g.guesser === name)!.heldOut.all;

test('on a set with no shortcut every guesser is at chance (within 5 points, 4 standard errors, on 1,200 questions a split)', async () => {
  const { audit } = await auditShortcuts(set(1200, fair));
  assert.deepEqual(audit.guessers.map((g) => g.guesser), BLIND_GUESSERS.map((g) => g.name));
  for (const g of audit.guessers) {
    for (const [split, s] of Object.entries(g.splits)) {
      assert.equal(s.all.n, 1200, `${g.guesser} ${split}`);
      assert.ok(Math.abs(s.all.accuracy.value - 0.25) < 0.05, `${g.guesser} on ${split}: ${(100 * s.all.accuracy.value).toFixed(1)}%`);
    }
  }
});

test('ties are broken by the question, not by letter order: four options of one length give the longest-option guesser chance, not always A', async () => {
  const items = set(800, (random) => ({ options: shuffled(random, ['aaaa', 'bbbb', 'cccc', 'dddd']) as [string, string, string, string], answer: 'A' }));
  const { audit } = await auditShortcuts(items, BLIND_GUESSERS.filter((g) => g.name === 'longest-option'));
  const cell = audit.guessers[0]!.heldOut.all;
  assert.ok(cell.accuracy.value > 0.2 && cell.accuracy.value < 0.3, `${cell.accuracy.value} (always-A would be 100%)`);
});

test('the only denial among four is found by odd-one-out; the frequency guesser learns which option text is the key on train and scores it on valid + test', async () => {
  // Negation items whose key is always the only denial; the key's text repeats across the set.
  const items = set(600, (random) => {
    const finding = FINDINGS[Math.floor(random() * FINDINGS.length)]!;
    const others = shuffled(random, FINDINGS.filter((f) => f !== finding)).slice(0, 3).map((f) => `Small ${f}`);
    const options = shuffled(random, [`No ${finding}`, ...others]) as [string, string, string, string];
    return { options, answer: LETTERS[options.indexOf(`No ${finding}`)]! };
  });
  assert.equal(oddOneOut(items[0]!), items[0]!.answer);
  const { audit } = await auditShortcuts(items);
  assert.equal(held(audit, 'odd-one-out').correct, held(audit, 'odd-one-out').n, 'every one');
  assert.equal(held(audit, 'not-odd-one-out').correct, 0, 'and its mirror none');
  assert.ok(held(audit, 'option-frequency').accuracy.value > 0.9, String(held(audit, 'option-frequency').accuracy.value));
  assert.ok(held(audit, 'text-only').accuracy.value > 0.9, String(held(audit, 'text-only').accuracy.value));
  assert.deepEqual(audit.guessers.find((g) => g.guesser === 'text-only')!.heldOut.splits, ['valid', 'test']);
});

test('a learned guesser never answers a question it was fitted on: options unique to each question give it chance, on train too', async () => {
  // Each question has its own four option texts, the key random: memorising train would score 100% in-sample.
  const items = set(1000, (random, k) => ({ options: [0, 1, 2, 3].map((i) => `${FINDINGS[(k + i) % FINDINGS.length]} variant ${k}-${i}-${Math.floor(random() * 1e9)}`) as [string, string, string, string], answer: LETTERS[Math.floor(random() * 4)]! }));
  const { audit } = await auditShortcuts(items);
  const frequency = audit.guessers.find((g) => g.guesser === 'option-frequency')!;
  assert.equal(frequency.fittedOn, 'train');
  for (const split of ['train', 'valid', 'test']) assert.ok(frequency.splits[split]!.all.accuracy.value < 0.32, `${split}: ${frequency.splits[split]!.all.accuracy.value}`);
  // A set without a train split is cross-fitted in two halves of the studies, and says so.
  const testOnly = await auditShortcuts(items.filter((i) => i.split === 'test'));
  assert.equal(testOnly.audit.guessers.find((g) => g.guesser === 'option-frequency')!.fittedOn, 'cross-fit');
  assert.match(shortcutAuditMarkdown(testOnly.audit, null), /no train split, so learned guessers are cross-fitted/);
});

test('the limit removes only what it must: every guesser ends at or under the share on every split, each removal names its guessers', async () => {
  // Half the questions have the key as the only denial, half are fair: odd-one-out scores about 62%.
  const items = set(900, (random, k) => {
    if (k % 2 === 0) return fair(random);
    const finding = FINDINGS[Math.floor(random() * FINDINGS.length)]!;
    const options = shuffled(random, [`No ${finding}`, ...shuffled(random, FINDINGS.filter((f) => f !== finding)).slice(0, 3).map((f) => `Small ${f}`)]) as [string, string, string, string];
    return { options, answer: LETTERS[options.indexOf(`No ${finding}`)]! };
  });
  const before = await auditShortcuts(items);
  assert.ok(held(before.audit, 'odd-one-out').accuracy.value > 0.55);
  const limited = await limitBlindAccuracy(items, 0.35);
  assert.deepEqual(limited.over, []);
  for (const g of limited.audit.guessers) for (const [split, s] of Object.entries(g.splits)) assert.ok(s.all.correct / s.all.n <= 0.35, `${g.guesser} on ${split}`);
  assert.equal(limited.kept.length + limited.removed.length, items.length);
  assert.equal(new Set(limited.removed.map((r) => r.id)).size, limited.removed.length, 'each question removed once');
  assert.ok(limited.removed.every((r) => /^answered without the image by [a-z-]+(, [a-z-]+)* \(on (train|valid|test): .*limit 35\.0%\)$/.test(r.reason)), limited.removed[0]?.reason);
  // Just enough: odd-one-out ~62% → 35% needs roughly 42% of each split to go, not the ~62% it gets right.
  const share = limited.removed.length / items.length;
  assert.ok(share > 0.3 && share < 0.55, `removed ${(100 * share).toFixed(1)}%`);
  // The fair half is left nearly whole: removals fall on the shortcut questions.
  const fairGone = limited.removed.filter((r) => Number(r.id.split('-')[1]) % 2 === 0).length;
  assert.ok(fairGone < 0.25 * limited.removed.length, `${fairGone} of ${limited.removed.length} removals were fair questions`);
});

test('the card section shows each guesser per split, held-out per task, bold only where the interval is wholly above chance', async () => {
  const items = set(300, (random, k) => (k % 5 === 1 ? { options: ['No effusion', 'Small nodule', 'Small mass', 'Small scar'], answer: 'A' } : fair(random)));
  const { audit } = await auditShortcuts(items);
  const md = shortcutAuditMarkdown(audit, { share: 0.35, removed: 7, over: [{ guesser: 'odd-one-out', split: 'valid', accuracy: 0.4 }] });
  assert.match(md, /^\| guesser \| train \| valid \| test \| valid \+ test \| what it exploits \|$/m);
  const negation = TASK_NAMES[1];
  const perTask = md.slice(md.indexOf('Per task'));
  const row = perTask.split('\n').find((l) => l.startsWith('| odd-one-out |'))!;
  const cells = row.split('|').slice(2, -1).map((c) => c.trim());
  const tasks = md.split('\n').find((l) => l.startsWith('| guesser | Presence'))!.split('|').slice(2, -1).map((c) => c.trim());
  assert.match(cells[tasks.indexOf(negation)]!, /^\*\*100\.0% \(\d+–100\) n=\d+\*\*$/, 'the task where the key is always the only denial');
  // Elsewhere the key is random, so a cell is bold only when its 95% interval happens to clear chance (1 in 40).
  for (const c of cells) {
    const low = Number(/\((\d+)–/.exec(c)![1]);
    assert.equal(c.startsWith('**'), low > 25, c);
  }
  assert.match(md, /7 question\(s\) removed .*Still over the limit: odd-one-out on valid 40\.0%\./);
});

test('the cross-fit splits train by study even when every study gives the same image path (a corpus whose image column names a projection): the frequency guesser still learns on train', async () => {
  const items = set(600, (random) => {
    const finding = FINDINGS[Math.floor(random() * FINDINGS.length)]!;
    const others = shuffled(random, FINDINGS.filter((f) => f !== finding)).slice(0, 3).map((f) => `Small ${f}`);
    const options = shuffled(random, [`No ${finding}`, ...others]) as [string, string, string, string];
    return { options, answer: LETTERS[options.indexOf(`No ${finding}`)]! };
  }).map((i) => ({ ...i, images: [{ path: 'Xray Chest PA and Lateral' }] }));
  const { audit } = await auditShortcuts(items);
  const train = audit.guessers.find((g) => g.guesser === 'option-frequency')!.splits.train!.all;
  // Fitted on an empty half it would guess at chance; fitted on the other half of the studies it finds the denials.
  assert.ok(train.accuracy.value > 0.9, String(train.accuracy.value));
});
