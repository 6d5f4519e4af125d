import { z } from 'zod';

/** The answer judge a run's outcomes used: its model (never a secret), the generation settings and the fixed prompt. */
export const JudgeManifest = z.object({
  model: z.object({ kind: z.string(), name: z.string(), baseline: z.boolean(), args: z.record(z.string(), z.unknown()) }),
  params: z.object({ temperature: z.number(), maxTokens: z.number().int() }),
  prompt: z.object({ name: z.string(), version: z.string(), sha256: z.string() }),
});

/** A judge entry of a manifest. */
export type JudgeManifest = z.infer<typeof JudgeManifest>;

/** A stratified sample of a split: its size, how it was asked for, the stratify key, the seed and the count per stratum. */
export const SampleManifest = z.object({
  size: z.number().int().nonnegative(),
  /** The share of the split asked for (`--sample 1%` → 0.01); null when a number of questions was asked for. */
  share: z.number().nullable(),
  stratify: z.enum(['task', 'category', 'subcategory']).nullable(),
  seed: z.number().int(),
  strata: z.record(z.string(), z.object({ selected: z.number().int().nonnegative(), of: z.number().int().nonnegative() })),
});

/**
 * The manifest of a run: everything that decides its outputs. Every pluggable piece records its name,
 * version and arguments; secrets never appear (API keys are named by their environment variable).
 * Resuming a run compares the stored manifest with the new one (see `manifestConflicts`).
 */
export const RunManifest = z.object({
  schema: z.literal(1),
  toolVersion: z.string(),
  createdAt: z.string(),
  dataset: z.object({
    name: z.string(),
    path: z.string(),
    split: z.string(),
    /** sha256 of the split's question file, as on disk. */
    sha256: z.string(),
    count: z.number().int().nonnegative(),
    /** Questions selected for this run (after --limit), by id order of the file. */
    selected: z.number().int().nonnegative(),
  }),
  adapter: z.object({
    kind: z.string(),
    name: z.string(),
    /** True for baselines: they are labelled as such in every report. */
    baseline: z.boolean(),
    args: z.record(z.string(), z.unknown()),
  }),
  prompt: z.object({ name: z.string(), version: z.string(), sha256: z.string(), patientContext: z.boolean() }),
  images: z.object({
    /** How many views were sent at most (null: all of them). */
    maxImages: z.number().int().positive().nullable(),
    /** Longest side in pixels images were resized to (null: sent as stored). */
    maxPixels: z.number().int().positive().nullable(),
    detail: z.enum(['auto', 'low', 'high']).nullable(),
    order: z.string(),
  }),
  extractor: z.object({
    name: z.string(),
    version: z.string(),
    strict: z.boolean(),
    /** The answer judge asked about outputs the rules could not read (absent: rules only). Its verdicts are in judge.jsonl. */
    judge: JudgeManifest.optional(),
  }),
  params: z.object({
    temperature: z.number(), maxTokens: z.number().int(), topP: z.number().optional(), seed: z.number().int().optional(),
    /** Request options sent as given (`--param`, a preset's), keys sorted: another set of them is another run. */
    requestParams: z.record(z.string(), z.unknown()).optional(),
  }),
  seed: z.number().int(),
  /** A derived run (e.g. `shuffle-check`): same model and settings, other item variants. */
  variant: z.string().optional(),
  /** `open`: the questions were asked without options (`eval --open`); absent: multiple choice. */
  mode: z.literal('open').optional(),
  /** The stratified sample the run asked (`eval --sample`); absent: the whole split (or its first --limit questions). */
  sample: SampleManifest.optional(),
});

/** A run manifest. */
export type RunManifest = z.infer<typeof RunManifest>;

/**
 * The differences between a stored manifest and a new one that make resuming wrong: another dataset file,
 * split or selection, another model or arguments, another prompt, other image handling or generation
 * parameters. Extraction settings may differ: outcomes are recomputed from the journal.
 */
export function manifestConflicts(stored: RunManifest, next: RunManifest): string[] {
  const conflicts: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (stored.dataset.sha256 !== next.dataset.sha256 || stored.dataset.split !== next.dataset.split) {
    conflicts.push(`dataset: the run used ${stored.dataset.split} of ${stored.dataset.path} (sha256 ${stored.dataset.sha256.slice(0, 12)}…), now ${next.dataset.split} of ${next.dataset.path} (sha256 ${next.dataset.sha256.slice(0, 12)}…)`);
  }
  if (stored.dataset.selected !== next.dataset.selected) conflicts.push(`selection: the run covers ${stored.dataset.selected} questions, now ${next.dataset.selected}`);
  if (!same(stored.adapter, next.adapter)) conflicts.push(`model: the run used ${stored.adapter.kind}:${stored.adapter.name} ${JSON.stringify(stored.adapter.args)}, now ${next.adapter.kind}:${next.adapter.name} ${JSON.stringify(next.adapter.args)}`);
  if (!same(stored.prompt, next.prompt)) conflicts.push(`prompt: the run used ${stored.prompt.name} v${stored.prompt.version} (sha256 ${stored.prompt.sha256.slice(0, 12)}…), now ${next.prompt.name} v${next.prompt.version} (sha256 ${next.prompt.sha256.slice(0, 12)}…)`);
  if (!same(stored.images, next.images)) conflicts.push(`images: the run used ${JSON.stringify(stored.images)}, now ${JSON.stringify(next.images)}`);
  if (!same(stored.sample ?? null, next.sample ?? null)) conflicts.push(`sample: the run asked ${sampleWords(stored.sample)}, now ${sampleWords(next.sample)}`);
  if (stored.mode !== next.mode) conflicts.push(`mode: the run is ${stored.mode === 'open' ? 'open-ended (--open)' : 'multiple choice'}, now ${next.mode === 'open' ? 'open-ended (--open)' : 'multiple choice'}`);
  if (stored.variant !== next.variant) conflicts.push(`variant: the run is ${stored.variant ?? 'the main run'}, now ${next.variant ?? 'the main run'}`);
  if (!same(stored.params, next.params) || stored.seed !== next.seed) conflicts.push(`generation parameters: the run used ${JSON.stringify({ ...stored.params, seed: stored.seed })}, now ${JSON.stringify({ ...next.params, seed: next.seed })}`);
  return conflicts;
}

function sampleWords(sample: RunManifest['sample']): string {
  if (!sample) return 'the whole selection (no --sample)';
  return `a sample of ${sample.size}${sample.share !== null ? ` (${+(sample.share * 100).toFixed(6)}%)` : ''}${sample.stratify ? ` stratified by ${sample.stratify}` : ''}, seed ${sample.seed}`;
}
