import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CxrError } from '../core/errors.js';
import type { CorpusReport } from '../corpus/corpus-report.js';
import { readCorpus } from '../corpus/read-corpus.js';
import { writeFileAtomically } from '../dataset/sources/atomic-write.js';
import { detectPhi } from '../phi/detect.js';
import { allPairsIfSmall, diversityFilter, diversityText } from './check/diversity.js';
import type { Rejection } from './check/rejection.js';
import { reviewSample } from './check/review-sample.js';
import type { GeneratedQuestion } from './generated-question.js';
import { OFFLINE_GENERATOR } from './offline-generator.js';
import { reportStage } from './stage/report-stage.js';
import { offlineStages } from './stage/report-threads.js';
import { screenReport } from './phi-screen.js';
import { buildCard, type DatasetCard } from './card.js';
import { auditShortcuts, type ShortcutAudit } from '../shortcuts/audit.js';
import type { LimitSummary } from '../shortcuts/audit-card.js';
import { limitBlindAccuracy, type BlindRemoval } from '../shortcuts/limit.js';
import type { ModelGenerator } from './model/model-generator.js';
import type { Embedder } from '../models/embeddings.js';
import type { QuestionJudge } from './check/question-judge.js';
import { PHI_PROMPT, type PhiModel } from './model/phi-model.js';
import { imageOnlySentences } from './minimum-necessary.js';
import { generationPrompts, judgePromptInfo } from './model/prompts.js';

export interface GenerateSettings {
  corpus: string;
  out: string;
  seed: number;
  /** Cosine similarity above which a question is dropped as a near-duplicate of a kept one. */
  similarity: number;
  /** Share of kept questions in the expert-review sample. */
  reviewRate: number;
  /** Split shares (train, valid, test), by patient where known, else by report. */
  splits: { train: number; valid: number; test: number };
  /** The model-backed generator; without one, the offline templates. */
  generator?: ModelGenerator;
  /** Stops asking the model (the journal keeps what was answered). */
  signal?: AbortSignal;
  /** Embeddings for the diversity filter; without one, TF-IDF. */
  embedder?: Embedder;
  /** Near-duplicates within a report (default) or across the whole set. */
  diversityScope?: 'study' | 'dataset';
  /** A model asked c1–c3 about each question after the heuristics. */
  contentJudge?: QuestionJudge;
  /** A model that finds identifiers the rules missed (after them). */
  phiModel?: PhiModel;
  /**
   * Questions the blind guessers answer are removed until every guesser is at or under this share on every split
   * (`--max-blind-accuracy`); without it the audit is only measured and shown.
   */
  maxBlindAccuracy?: number;
}

/** What happened to one imported report: how many questions it gave, or why none. */
export interface ReportAccount { reportId: string; generated: number; kept: number; reason: string | null; phiKinds: string[] }

/**
 * The shortcut audit of the kept questions (what blind guessers score per split and task) and, with a limit, the
 * questions removed to bring every guesser under it. The guessers see each question's wording only.
 */
async function blindAudit(kept: readonly { q: GeneratedQuestion; split: string; seedKey: string }[], share: number | null): Promise<{ audit: ShortcutAudit; limit: LimitSummary | null; removals: BlindRemoval[] }> {
  // The limit orders its removals by question id. The written ids are keyed by this output's secret (idKey), so they
  // would make the set differ from one output folder to the next; the corpus's own ids (kept in memory only, never
  // written) make it the same for the same corpus and seed wherever it is written. (Guessers' ties and folds use
  // stableKey, which the written set gives check --shortcuts too.)
  const writtenId = new Map<string, string>();
  const items = kept.map(({ q, split, seedKey }) => {
    const stableId = `${seedKey}\u0000${q.id.slice(q.id.lastIndexOf('#'))}`;
    writtenId.set(stableId, q.id);
    return { id: stableId, split, studyId: seedKey, task: q.task, text: q.question, options: q.options, answer: q.answer, images: q.images };
  });
  if (share === null) return { audit: (await auditShortcuts(items)).audit, limit: null, removals: [] };
  const limited = await limitBlindAccuracy(items, share);
  const removals = limited.removed.map((r) => ({ ...r, id: writtenId.get(r.id)! }));
  return { audit: limited.audit, limit: { share, removed: removals.length, over: limited.over }, removals };
}

/**
 * The secret that keys the output's report and patient ids (HMAC-SHA256): a plain hash of a hospital id can be
 * reversed by trying every MRN. Kept beside the output folder (`<out>.id-key`, never inside it), made once, so a
 * rerun gives the same ids; whoever holds it can link the set back to the hospital's ids.
 */
function idKey(out: string): Buffer {
  const file = `${out.replace(/[\\/]+$/, '')}.id-key`;
  mkdirSync(dirname(resolve(file)), { recursive: true });
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

function splitOf(key: string, splits: GenerateSettings['splits'], seed: number): 'train' | 'valid' | 'test' {
  const x = parseInt(createHash('sha256').update(`${seed}:${key}`).digest('hex').slice(0, 8), 16) / 0x100000000;
  const total = splits.train + splits.valid + splits.test;
  if (x < splits.train / total) return 'train';
  return x < (splits.train + splits.valid) / total ? 'valid' : 'test';
}

/** Why a report gave no question, in words. */
function noQuestionReason(report: CorpusReport, namesFindings: boolean): string {
  if (report.images.length === 0) return 'no images: a ReXVQA record needs at least one image path (corpus import --images-csv)';
  if (!namesFindings) return 'no finding of the vocabulary is named in findings or impression';
  return 'findings named, but none gave a question the templates accept (e.g. too few findings the report does not support to serve as distractors)';
}

/** The output folder's files; the question set is in the official layout, everything else beside it. */
export const OUTPUT_FILES = { metadata: 'metadata', card: 'dataset-card.md', cardJson: 'dataset-card.json', rejections: 'rejections.jsonl', reports: 'reports.jsonl', history: 'history.jsonl', review: 'review-sample.jsonl' };

/**
 * The paper's generate → check → validate pipeline, offline: every report PHI-screened (identifiers redacted),
 * template questions generated, each checked by the structural (v1–v4) and content (c1–c3) validators and a PHI
 * screen of its own text, near-duplicates dropped, split by patient, written in the official layout with a
 * dataset card, a stratified review sample, every rejection and every report's account.
 */
export async function generateQuestionSet(settings: GenerateSettings): Promise<DatasetCard> {
  if (existsSync(settings.out) && !statSync(settings.out).isDirectory()) throw new CxrError('output-exists', `--out ${settings.out}: a file is there; give a folder for the question set`);
  const accounts: ReportAccount[] = [];
  const rejections: Rejection[] = [];
  const passed: { q: GeneratedQuestion; record: Record<string, unknown>; split: string; seedKey: string }[] = [];
  const validatorRuns = new Map<string, { checked: number; failed: number }>();
  const count = (validator: string, failed: boolean) => {
    const c = validatorRuns.get(validator) ?? { checked: 0, failed: 0 };
    c.checked++;
    if (failed) c.failed++;
    validatorRuns.set(validator, c);
  };
  const seenIds = new Set<string>();
  const key = idKey(settings.out);
  const anonymousId = (text: string) => createHmac('sha256', key).update(text).digest('hex').slice(0, 16);
  const metadataDir = resolve(settings.out, OUTPUT_FILES.metadata);
  // Read and screen every report first: a model generator asks about many at once.
  const screened: { safe: CorpusReport; kinds: string[]; seedKey: string; splitKey: string }[] = [];
  for await (const raw of readCorpus(settings.corpus)) {
    if (seenIds.has(raw.id)) throw new CxrError('unreadable-file', `${settings.corpus}: report id "${raw.id.slice(0, 80)}" appears twice; corpus import writes each id once`);
    seenIds.add(raw.id);
    const { report, kinds } = screenReport(raw);
    // Patient and report ids in the output are hashes: a hospital's ids are identifiers themselves.
    // Shuffles and splits are seeded by the corpus's own ids (never written), so the set is the same whatever the key.
    screened.push({ safe: { ...report, id: `r${anonymousId(raw.id)}`, patientId: raw.patientId === null ? null : `p${anonymousId(raw.patientId)}` }, kinds, seedKey: raw.id, splitKey: raw.patientId ?? raw.id });
  }
  // An empty corpus would write an empty question set and a card of zeros, and exit as if it had worked.
  if (screened.length === 0) throw new CxrError('unreadable-file', `${settings.corpus}: no report in the corpus; make one with \`cxrbench corpus import <reports> --format csv|jsonl|rexgradient --out corpus.jsonl\``);
  mkdirSync(join(settings.out, OUTPUT_FILES.metadata), { recursive: true });
  // The PHI model (optional) reads what the rules left; a report it could not screen gives no question.
  const phiUnscreened = new Map<string, string>();
  if (settings.phiModel) {
    const result = await settings.phiModel.screen(screened.map((r) => r.safe), settings.signal);
    if (settings.signal?.aborted) throw new CxrError('resume-conflict', 'PHI screening stopped before every report was read; rerun the same command to resume');
    screened.forEach((r, i) => {
      r.safe = result.reports[i]!;
      r.kinds = [...new Set([...r.kinds, ...(result.kinds.get(r.safe.id) ?? [])])];
    });
    for (const [id, why] of result.unscreened) phiUnscreened.set(id, why);
  }
  for (const r of screened) if (phiUnscreened.has(r.safe.id)) r.safe = { ...r.safe, images: [] };
  // Image paths are written as given (they must resolve): one that carries an identifier keeps its report out.
  const pathIdentifiers = new Map<string, string>();
  for (const r of screened) {
    const kinds = [...new Set(r.safe.images.flatMap((i) => detectPhi(i.path.replace(/[_/\\]+/g, ' ')).map((s) => s.kind)))].filter((k) => k !== 'other_id');
    if (kinds.length === 0) continue;
    pathIdentifiers.set(r.safe.id, kinds.join(', '));
    r.safe = { ...r.safe, images: [] };
  }
  const byModel = settings.generator ? await settings.generator.generateAll(screened.filter((r) => r.safe.images.length > 0).map((r) => r.safe), settings.signal) : null;
  if (settings.signal?.aborted) throw new CxrError('resume-conflict', 'generation stopped before every report was asked; rerun the same command to resume (answers so far are journaled)');
  // The per-report stage (read, make, check): for the templates on one thread per core when the corpus is large.
  const offline = byModel ? null : await offlineStages(screened.map(({ safe, seedKey }) => ({ safe, seedKey })), settings.seed, metadataDir);
  screened.forEach(({ safe, kinds, seedKey, splitKey }, index) => {
    const fromModel = byModel?.get(safe.id);
    for (const problem of fromModel?.problems ?? []) {
      rejections.push({ questionId: `${safe.id}#model`, reportId: safe.id, validator: 'generation', reason: problem });
      count('generation', true);
    }
    // With a model, a report it gave nothing for gives no question — never a template one in its place.
    const stage = offline ? offline[index]! : reportStage(safe, safe.images.length === 0 ? [] : (fromModel?.questions ?? []), settings.seed, seedKey, metadataDir);
    let kept = 0;
    for (const { q, record, failures } of stage.questions) {
      if (fromModel) count('generation', false);
      for (const v of ['v1', 'v2', 'v3', 'v4', 'c1', 'c2', 'c3', 'phi']) count(v, failures.some(([name]) => name === v));
      if (failures.length > 0) {
        for (const [validator, reason] of failures) rejections.push({ questionId: q.id, reportId: safe.id, validator, reason });
        continue;
      }
      passed.push({ q, record, split: splitOf(splitKey, settings.splits, settings.seed), seedKey });
      kept++;
    }
    const questions = stage.questions;
    const reason = questions.length > 0 ? null : pathIdentifiers.has(safe.id) ? `an image path carries an identifier (${pathIdentifiers.get(safe.id)}): rename the image files, then import again` : phiUnscreened.has(safe.id) ? `the PHI model could not screen it (${phiUnscreened.get(safe.id)}); rerun to ask again` : fromModel && fromModel.problems.length > 0 ? `the model's reply gave no usable question: ${fromModel.problems[0]}` : byModel && !fromModel && safe.images.length > 0 ? 'the model has not answered for it yet (rerun the same command to ask)' : noQuestionReason(safe, stage.namesFindings);
    accounts.push({ reportId: safe.id, generated: questions.length, kept, reason, phiKinds: kinds });
  });
  // The content judge (optional): c1–c3 asked of a model about every question the heuristics passed.
  if (settings.contentJudge) {
    const reportText = new Map(screened.map(({ safe }) => [safe.id, [imageOnlySentences(safe.sections.findings), imageOnlySentences(safe.sections.impression)].filter(Boolean).join('\n')]));
    const verdicts = await settings.contentJudge.judge(passed.map((p) => ({ q: p.q, report: reportText.get(p.q.reportId) ?? '' })), settings.signal);
    if (settings.signal?.aborted) throw new CxrError('resume-conflict', 'the content judge stopped before every question was judged; rerun the same command to resume');
    passed.splice(0, passed.length, ...passed.filter((p) => {
      const failures = verdicts.get(p.q.id) ?? [['judge', 'not judged']];
      for (const v of ['c1 (judge)', 'c2 (judge)', 'c3 (judge)', 'judge']) count(v, failures.some(([name]) => name === v));
      for (const [validator, reason] of failures) rejections.push({ questionId: p.q.id, reportId: p.q.reportId, validator, reason });
      return failures.length === 0;
    }));
  }
  // With an embedding model, every passing question is embedded once; rounds reuse the vectors.
  const vectors = settings.embedder ? await settings.embedder.embed(passed.map((p) => diversityText(p.q.question, p.q.options)), settings.signal) : null;
  const vectorOf = new Map(passed.map((p, i) => [p.q.id, vectors?.[i]]));
  // Scope "study" (the default) compares the questions of one report with each other: the same question about
  // another patient's film is a different item. Scope "dataset" compares every question with every other, as the
  // paper's filter reads literally (template text then keeps few questions).
  const keepDiverse = (pool: typeof passed): typeof passed => {
    const groups = new Map<string, typeof passed>();
    for (const p of pool) {
      const group = settings.diversityScope === 'dataset' ? '' : p.q.reportId;
      const members = groups.get(group);
      if (members) members.push(p);
      else groups.set(group, [p]);
    }
    const diverse: typeof passed = [];
    for (const group of groups.values()) {
      let current = group;
      // TF-IDF weights depend on the set, so dropping questions can lift a kept pair over the threshold: filter
      // again until the kept set is stable, so that `cxrbench check` on the output finds no near-duplicate either.
      for (let round = 0; round < 20; round++) {
        const before = current;
        const verdicts = diversityFilter(before.map((p) => diversityText(p.q.question, p.q.options)), { threshold: settings.similarity, ...allPairsIfSmall(before.length) }, vectors ? before.map((p) => vectorOf.get(p.q.id)!) : undefined);
        if (verdicts.every((v) => v.kept)) break;
        current = before.filter((p, i) => {
          const v = verdicts[i]!;
          if (!v.kept) rejections.push({ questionId: p.q.id, reportId: p.q.reportId, validator: 'diversity', reason: `near-duplicate: cosine ${v.similarity.toFixed(3)} > ${settings.similarity} with ${before[v.nearest]!.q.id}` });
          return v.kept;
        });
      }
      diverse.push(...current);
    }
    return diverse;
  };
  let kept = keepDiverse(passed);
  let blind = await blindAudit(kept, settings.maxBlindAccuracy ?? null);
  const blindRemoved = new Set<string>();
  // Removing questions moves both filters — TF-IDF weights change with the set, learned guessers with what is left
  // — so they take turns until neither removes anything, and `cxrbench check` on the output agrees with both.
  for (let round = 0; blind.removals.length > 0; round++) {
    const removed = new Map(blind.removals.map((r) => [r.id, r.reason]));
    for (const p of kept) if (removed.has(p.q.id)) rejections.push({ questionId: p.q.id, reportId: p.q.reportId, validator: 'shortcuts', reason: removed.get(p.q.id)! });
    for (const id of removed.keys()) blindRemoved.add(id);
    const left = kept.filter((p) => !removed.has(p.q.id));
    kept = keepDiverse(left);
    if (kept.length === left.length || round === 9) break;
    blind = await blindAudit(kept, settings.maxBlindAccuracy ?? null);
  }
  const keptIds = new Set(kept.map((p) => p.q.id));
  for (const p of passed) count('diversity', !keptIds.has(p.q.id) && !blindRemoved.has(p.q.id));
  // The shortcut limit judged every question that passed the other validators.
  if (blind.limit) for (const p of passed) if (keptIds.has(p.q.id) || blindRemoved.has(p.q.id)) count('shortcuts', blindRemoved.has(p.q.id));
  if (blind.limit) blind.limit.removed = blindRemoved.size;
  const keptByReport = new Map<string, number>();
  for (const p of kept) keptByReport.set(p.q.reportId, (keptByReport.get(p.q.reportId) ?? 0) + 1);
  const validatorsByReport = new Map<string, Set<string>>();
  for (const r of rejections) validatorsByReport.set(r.reportId, (validatorsByReport.get(r.reportId) ?? new Set()).add(r.validator));
  for (const a of accounts) {
    a.kept = keptByReport.get(a.reportId) ?? 0;
    if (a.generated === 0 || a.kept > 0) continue;
    const by = [...(validatorsByReport.get(a.reportId) ?? [])].sort();
    a.reason = by.length === 1 && by[0] === 'diversity'
      ? 'every question it gave repeats one already kept from another report (diversity filter)'
      : `every question it gave was rejected, by ${by.join(', ')} (see rejections.jsonl)`;
  }
  for (const split of ['train', 'valid', 'test'] as const) {
    const members = kept.filter((p) => p.split === split);
    await writeFileAtomically(join(settings.out, OUTPUT_FILES.metadata, `${split}_vqa_data.json`), async function* () {
      yield '{';
      for (const [i, p] of members.entries()) yield `${i === 0 ? '\n' : ',\n'}  ${JSON.stringify(p.q.id)}: ${JSON.stringify(p.record)}`;
      yield members.length === 0 ? '}\n' : '\n}\n';
    });
  }
  const sample = reviewSample(kept.map((p) => p.q.difficulty), settings.reviewRate, settings.seed).map((i) => kept[i]!);
  const lines = <T>(file: string, items: T[]) => writeFileAtomically(join(settings.out, file), async function* () {
    for (const item of items) yield `${JSON.stringify(item)}\n`;
  });
  await lines(OUTPUT_FILES.review, sample.map((p) => ({ id: p.q.id, split: p.split, difficulty: p.q.difficulty, task: p.q.task, question: p.q.question, options: p.q.options, answer: p.q.answer, explanation: p.q.explanation, evidence: p.q.evidence, review: { correct: null, clear: null, imageAligned: null, notes: '' } })));
  await lines(OUTPUT_FILES.rejections, rejections);
  await lines(OUTPUT_FILES.reports, accounts);
  await lines(OUTPUT_FILES.history, [...passed.map((p) => p.q)].map((q) => ({ id: q.id, reportId: q.reportId, generator: q.generator, evidence: q.evidence, claim: q.claim, difficulty: q.difficulty })));
  const card = buildCard({ settings, generator: settings.generator?.description ?? OFFLINE_GENERATOR, prompts: [...(settings.generator ? generationPrompts() : []), ...(settings.contentJudge ? judgePromptInfo() : []), ...(settings.phiModel ? [{ ...settings.phiModel.description.prompt, changelog: PHI_PROMPT.changelog }] : [])], accounts, rejections, kept: kept.map((p) => ({ q: p.q, split: p.split })), validatorRuns, reviewCount: sample.length, shortcuts: { audit: blind.audit, limit: blind.limit } });
  await writeFileAtomically(join(settings.out, OUTPUT_FILES.cardJson), async function* () {
    yield `${JSON.stringify(card.json, null, 2)}\n`;
  });
  await writeFileAtomically(join(settings.out, OUTPUT_FILES.card), async function* () {
    yield card.markdown;
  });
  return card;
}
