import { z } from 'zod';
import type { RadGraph } from './model-metrics.js';
import { RATESCORE_TYPES, type RateEntity } from './ratescore.js';

/**
 * The model side of the model-based metrics behind one interface: a backend gives what the network computes,
 * and the metric's arithmetic is done here (model-metrics.ts).
 */
export interface ModelMetricBackend {
  /** What the backend is (for the output and messages). */
  readonly name: string;
  /** Contextual token embeddings of each text (BERTScore), without special tokens. */
  tokenEmbeddings?(texts: string[]): Promise<number[][][]>;
  /** One CheXbert report embedding per text (SembScore). */
  reportEmbeddings?(texts: string[]): Promise<number[][]>;
  /** The RadGraph of each text. */
  radGraphs?(texts: string[]): Promise<RadGraph[]>;
  /** GREEN's judgement of each (reference, candidate) pair: the judge's reply, read here (green.ts). */
  greenJudgements?(pairs: { reference: string; candidate: string }[]): Promise<GreenJudgement[]>;
  /** RaTEScore's entities of each text: RaTE-NER's entities (text, type) with their BioLORD [CLS] embeddings. */
  ratescoreEntities?(texts: string[]): Promise<RateEntity[][]>;
}

/** GREEN's judgement of one pair as a backend gives it: the judge's reply (read here), counts a service read itself, or why there is none. */
export type GreenJudgement = { reply: string } | { counts: { matched: number; significantErrors: number } } | { failed: string };

const MODEL_METHODS = ['tokenEmbeddings', 'reportEmbeddings', 'radGraphs', 'greenJudgements', 'ratescoreEntities'] as const;

/**
 * One backend from several, in order of preference: each model method from the first source that has it (bound to
 * it: sources are classes whose methods use `this`). Null without sources.
 */
export function firstOfBackends(sources: readonly (ModelMetricBackend | null)[]): ModelMetricBackend | null {
  const present = sources.filter((b): b is ModelMetricBackend => b !== null);
  if (present.length <= 1) return present[0] ?? null;
  const combined: Record<string, unknown> = { name: present.map((b) => b.name).join(' + ') };
  for (const method of MODEL_METHODS) {
    const source = present.find((b) => b[method] !== undefined);
    if (source) combined[method] = (source[method] as (...args: never[]) => unknown).bind(source);
  }
  return combined as unknown as ModelMetricBackend;
}

/** A service answered 404 for a model: it does not run that network (older services have no /ratescore). */
export class ServiceLacksModel extends Error {}

const Vector = z.array(z.number().finite());
const Schemas = {
  bertscore: z.object({ embeddings: z.array(z.array(Vector)) }),
  chexbert: z.object({ embeddings: z.array(Vector) }),
  radgraph: z.object({ graphs: z.array(z.object({ entities: z.array(z.object({ text: z.string(), label: z.string() })), relations: z.array(z.object({ source: z.number().int().min(0), target: z.number().int().min(0), type: z.string() })) })) }),
  // The judge's own replies (read here, as GREEN reads them), or counts a service read itself (the first protocol).
  green: z.union([
    z.object({ replies: z.array(z.string()) }),
    z.object({ counts: z.array(z.object({ matched: z.number().int().min(0), significant_errors: z.number().int().min(0) })) }),
  ]),
  ratescore: z.object({
    entities: z.array(z.array(z.object({
      text: z.string(),
      // RaTE-NER's label without its B-/I- prefix, in any case ("abnormality", "NON-DISEASE").
      type: z.string().transform((t) => t.toUpperCase()).pipe(z.enum(RATESCORE_TYPES)),
      embedding: Vector.min(1),
    }))),
  }).refine((r) => new Set(r.entities.flat().map((e) => e.embedding.length)).size <= 1, { message: 'every entity embedding must have the same length', path: ['entities'] }),
};

/**
 * The HTTP scoring service (protocol in docs/rrg.md): POST JSON to `<base>/<model>` and get arrays back, one entry
 * per input, in order. Every reply is checked (shape and count) before a number is made from it.
 */
export class HttpScoringService implements ModelMetricBackend {
  readonly name: string;

  constructor(private readonly base: string, private readonly timeoutMs = 120_000) {
    this.name = `service ${base}`;
  }

  private async post<K extends keyof typeof Schemas, T>(path: K, body: unknown, count: number, pick: (reply: z.infer<(typeof Schemas)[K]>) => T[]): Promise<T[]> {
    const url = `${this.base.replace(/\/+$/, '')}/${path}`;
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new Error(`scoring service ${url}: ${(error as Error).message}`);
    }
    if (response.status === 404) throw new ServiceLacksModel(`scoring service ${url}: HTTP 404 — the service does not run this model`);
    if (!response.ok) throw new Error(`scoring service ${url}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
    const parsed = Schemas[path].safeParse(await response.json().catch(() => null));
    if (!parsed.success) throw new Error(`scoring service ${url}: the reply is not in the documented shape (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`);
    const out = pick(parsed.data as z.infer<(typeof Schemas)[K]>);
    if (out.length !== count) throw new Error(`scoring service ${url}: ${out.length} results for ${count} inputs`);
    return out;
  }

  tokenEmbeddings(texts: string[]): Promise<number[][][]> {
    return this.post('bertscore', { texts }, texts.length, (r: z.infer<typeof Schemas.bertscore>) => r.embeddings);
  }

  reportEmbeddings(texts: string[]): Promise<number[][]> {
    return this.post('chexbert', { texts }, texts.length, (r: z.infer<typeof Schemas.chexbert>) => r.embeddings);
  }

  radGraphs(texts: string[]): Promise<RadGraph[]> {
    return this.post('radgraph', { texts }, texts.length, (r: z.infer<typeof Schemas.radgraph>) => r.graphs);
  }

  greenJudgements(pairs: { reference: string; candidate: string }[]): Promise<GreenJudgement[]> {
    return this.post('green', { pairs }, pairs.length, (r: z.infer<typeof Schemas.green>): GreenJudgement[] =>
      'replies' in r ? r.replies.map((reply) => ({ reply })) : r.counts.map((c) => ({ counts: { matched: c.matched, significantErrors: c.significant_errors } })));
  }

  ratescoreEntities(texts: string[]): Promise<RateEntity[][]> {
    return this.post('ratescore', { texts }, texts.length, (r: z.infer<typeof Schemas.ratescore>) => r.entities);
  }
}
