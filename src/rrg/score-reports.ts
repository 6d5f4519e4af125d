import { seededRandom } from '../core/seeded-random.js';
import { quantile } from '../score/intervals.js';
import { sentenceBleu } from './bleu.js';
import { greenOf, readGreenReply, type GreenReading } from './green.js';
import { bertScoreF1, greenScore, radGraphCombined, sembScore } from './model-metrics.js';
import { radcliqV1, rankingValue } from './radcliq.js';
import { rateScore } from './ratescore.js';
import type { ReportPair } from './report-pairs.js';
import { rougeL } from './rouge-l.js';
import { ServiceLacksModel, type ModelMetricBackend } from './scoring-service.js';
import { rexrankTokens, rougeTokens } from './tokenize.js';

/** Metrics computed here from the text alone. */
export const TEXT_METRICS = ['bleu', 'rouge_l'] as const;
/** Metrics whose network runs elsewhere (a scoring service or a local ONNX model); their arithmetic is here. */
export const MODEL_METRICS = ['bertscore', 'sembscore', 'radgraph', 'green', 'ratescore'] as const;
/**
 * ReXrank columns cxrbench cannot compute: always "not computed", with why. FineRadScore's authors publish the
 * judge's per-line output (rajpurkarlab/FineRadScore) but not the numbers given to its severity categories nor how a
 * report's lines make its score, and cxrbench does not guess them (docs/rrg.md).
 */
export const UNSUPPORTED_METRICS = {
  fineradscore: "FineRadScore's report score is not defined in its authors' code (rajpurkarlab/FineRadScore gives each corrected line one of four clinical-severity categories, but not the numbers for them nor how a report's lines combine), so cxrbench does not compute it (docs/rrg.md)",
} as const;
export const METRICS = [...TEXT_METRICS, ...MODEL_METRICS, 'radcliq_v1', 'fineradscore'] as const;
export type MetricName = (typeof METRICS)[number];

/** A metric's mean over studies with a percentile bootstrap 95% interval (studies resampled), and n. */
export interface MetricSummary {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

export interface RrgResults {
  metrics: Partial<Record<MetricName, MetricSummary>>;
  /** Metrics asked for but not computed, with why and how to enable them — never a number from elsewhere. */
  not_computed: Partial<Record<MetricName, string>>;
  /** What ReXrank ranks by: 1/mean RadCliQ-v1, or the mean itself when it is ≤ 0 (then said so). */
  ranking: { value: number; kind: 'inverse' | 'radcliq' } | null;
  studies: { id: string; values: Partial<Record<MetricName, number>>; green?: GreenReading }[];
  /** Studies whose GREEN reply has none of GREEN's sections, or a count too large to be one (scored 0). */
  green_unreadable: string[];
  /** Studies the GREEN judge gave no reply for (then GREEN is not computed; a rerun asks about these only). */
  green_failed: string[];
  /** Studies with a missing or empty prediction (scored as an empty report). */
  empty_predictions: string[];
  settings: { resamples: number; seed: number; backend: string | null };
}

const HOW_TO_ENABLE = 'give a scoring service with --service <url>, or (BERTScore, SembScore) a model folder with --onnx-bertscore / --onnx-chexbert (docs/rrg.md)';

function bootstrap(values: readonly number[][], resamples: number, seed: number): { lo: number; hi: number }[] {
  const n = values[0]?.length ?? 0;
  const random = seededRandom(seed);
  const stats = values.map(() => new Float64Array(resamples));
  for (let b = 0; b < resamples; b++) {
    const sums = new Float64Array(values.length);
    for (let i = 0; i < n; i++) {
      const pick = (random() * n) | 0;
      for (let m = 0; m < values.length; m++) sums[m]! += values[m]![pick]!;
    }
    for (let m = 0; m < values.length; m++) stats[m]![b] = sums[m]! / n;
  }
  return stats.map((s) => {
    s.sort();
    return { lo: quantile(s, 0.025), hi: quantile(s, 0.975) };
  });
}

/**
 * Scores report pairs: BLEU-2 (ReXrank's tokens) and ROUGE-L here; BERTScore, SembScore, RadGraph, GREEN and RaTEScore from a
 * backend's model outputs (arithmetic here); RadCliQ-v1 per study when its four inputs are there. Every metric is
 * the mean of per-study values with a seeded bootstrap interval over studies.
 */
export async function scoreReports(pairs: readonly ReportPair[], options: { metrics: readonly MetricName[]; backend?: ModelMetricBackend | null; resamples?: number; seed?: number; emptyPredictions?: string[] }): Promise<RrgResults> {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 0;
  const backend = options.backend ?? null;
  const want = new Set<MetricName>(options.metrics);
  const perStudy = new Map<MetricName, number[]>();
  const notComputed: Partial<Record<MetricName, string>> = {};
  if (want.has('bleu')) perStudy.set('bleu', pairs.map((p) => sentenceBleu([rexrankTokens(p.reference)], rexrankTokens(p.prediction))));
  if (want.has('rouge_l')) perStudy.set('rouge_l', pairs.map((p) => rougeL(rougeTokens(p.reference), rougeTokens(p.prediction))));
  const refs = pairs.map((p) => p.reference);
  const preds = pairs.map((p) => p.prediction);
  const needs = (m: MetricName) => want.has(m) || (want.has('radcliq_v1') && ['bertscore', 'sembscore', 'radgraph', 'bleu'].includes(m));
  if (needs('bleu') && !perStudy.has('bleu')) perStudy.set('bleu', pairs.map((p) => sentenceBleu([rexrankTokens(p.reference)], rexrankTokens(p.prediction))));
  if (needs('bertscore')) {
    if (backend?.tokenEmbeddings) {
      const [r, c] = await Promise.all([backend.tokenEmbeddings(refs), backend.tokenEmbeddings(preds)]);
      perStudy.set('bertscore', pairs.map((_, i) => bertScoreF1(r[i]!, c[i]!)));
    } else notComputed.bertscore = `not computed: BERTScore needs distilroberta-base token embeddings — ${HOW_TO_ENABLE}`;
  }
  if (needs('sembscore')) {
    if (backend?.reportEmbeddings) {
      const [r, c] = await Promise.all([backend.reportEmbeddings(refs), backend.reportEmbeddings(preds)]);
      perStudy.set('sembscore', pairs.map((_, i) => sembScore(r[i]!, c[i]!)));
    } else notComputed.sembscore = `not computed: SembScore needs CheXbert embeddings — ${HOW_TO_ENABLE}`;
  }
  if (needs('radgraph')) {
    if (backend?.radGraphs) {
      const [r, c] = await Promise.all([backend.radGraphs(refs), backend.radGraphs(preds)]);
      perStudy.set('radgraph', pairs.map((_, i) => radGraphCombined(r[i]!, c[i]!)));
    } else notComputed.radgraph = `not computed: RadGraph needs the RadGraph (DyGIE++) model — ${HOW_TO_ENABLE}`;
  }
  const greenReadings = new Map<string, GreenReading>();
  const greenUnreadable: string[] = [];
  const greenFailed: string[] = [];
  if (want.has('green')) {
    if (backend?.greenJudgements) {
      const judged = await backend.greenJudgements(pairs.map((p) => ({ reference: p.reference, candidate: p.prediction })));
      const failed: string[] = [];
      judged.forEach((j, i) => {
        if (!('failed' in j)) return;
        greenFailed.push(pairs[i]!.id);
        failed.push(`${pairs[i]!.id} (${j.failed})`);
      });
      if (failed.length > 0) {
        notComputed.green = `not computed: the GREEN judge gave no reply for ${failed.length} of ${pairs.length} studies: ${failed.slice(0, 3).join('; ')}${failed.length > 3 ? '; …' : ''}. Rerun the same command to ask again (replies already given are kept)`;
      } else {
        perStudy.set('green', judged.map((j, i) => {
          if ('counts' in j) return greenScore(j.counts);
          if (!('reply' in j)) throw new Error('unreachable: failed judgements were handled above');
          const reading = readGreenReply(j.reply);
          greenReadings.set(pairs[i]!.id, reading);
          if (!reading.readable) greenUnreadable.push(pairs[i]!.id);
          return greenOf(reading);
        }));
      }
    } else notComputed.green = 'not computed: GREEN needs its judge — give --green openai:<model> --green-endpoint <url> (GREEN-RadLlama2-7b served by vLLM, say), or a scoring service with --service <url> (docs/rrg.md)';
  }
  if (want.has('ratescore')) {
    if (backend?.ratescoreEntities) {
      try {
        const [r, c] = await Promise.all([backend.ratescoreEntities(refs), backend.ratescoreEntities(preds)]);
        perStudy.set('ratescore', pairs.map((_, i) => rateScore(r[i]!, c[i]!)));
      } catch (error) {
        // A service written before /ratescore was in the protocol: the other metrics still count.
        if (!(error instanceof ServiceLacksModel)) throw error;
        notComputed.ratescore = `not computed: ${error.message}; RaTEScore needs a service with /ratescore, or --onnx-ratescore-ner and --onnx-ratescore-encoder (docs/rrg.md)`;
      }
    } else notComputed.ratescore = 'not computed: RaTEScore needs the RaTE-NER model and BioLORD entity embeddings — give a scoring service with --service <url>, or model folders with --onnx-ratescore-ner and --onnx-ratescore-encoder (docs/rrg.md)';
  }
  if (want.has('radcliq_v1')) {
    const inputs = ['radgraph', 'bertscore', 'sembscore', 'bleu'] as const;
    const missing = inputs.filter((m) => !perStudy.has(m));
    if (missing.length === 0) perStudy.set('radcliq_v1', pairs.map((_, i) => radcliqV1({ radgraph: perStudy.get('radgraph')![i]!, bertscore: perStudy.get('bertscore')![i]!, sembscore: perStudy.get('sembscore')![i]!, bleu: perStudy.get('bleu')![i]! })));
    else notComputed.radcliq_v1 = `not computed: RadCliQ-v1 combines RadGraph, BERTScore, SembScore and BLEU; missing ${missing.join(', ')}`;
  }
  for (const [name, why] of Object.entries(UNSUPPORTED_METRICS)) if (want.has(name as MetricName)) notComputed[name as MetricName] = `not computed: ${why}`;
  const shown = [...perStudy.keys()].filter((m) => want.has(m));
  const intervals = bootstrap(shown.map((m) => perStudy.get(m)!), resamples, seed);
  const metrics: Partial<Record<MetricName, MetricSummary>> = {};
  shown.forEach((m, k) => {
    const values = perStudy.get(m)!;
    metrics[m] = { mean: values.reduce((s, v) => s + v, 0) / Math.max(1, values.length), ...intervals[k]!, n: values.length };
  });
  return {
    metrics,
    not_computed: notComputed,
    ranking: metrics.radcliq_v1 ? rankingValue(metrics.radcliq_v1.mean) : null,
    studies: pairs.map((p, i) => {
      const green = greenReadings.get(p.id);
      return { id: p.id, values: Object.fromEntries(shown.map((m) => [m, perStudy.get(m)![i]!])), ...(green ? { green } : {}) };
    }),
    green_unreadable: greenUnreadable,
    green_failed: greenFailed,
    empty_predictions: options.emptyPredictions ?? [],
    settings: { resamples, seed, backend: backend?.name ?? null },
  };
}
