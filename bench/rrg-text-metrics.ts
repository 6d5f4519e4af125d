/**
 * Benchmark: BLEU-2 + ROUGE-L on 10,000 report pairs of ~60 words (issue #14). cxrbench's `scoreReports` (per-study
 * values, means and bootstrap intervals) against the same two metrics in a bare loop written here as the limit
 * (tokenise, count bigrams, one LCS table per pair — no intervals, no objects per study). Goal: ≤ 1 s for 10,000
 * pairs. Run: `./run bench:rrg` (BENCH_PAIRS to change the size).
 */
import { performance } from 'node:perf_hooks';
import { seededRandom } from '../src/core/seeded-random.js';
import { scoreReports } from '../src/rrg/score-reports.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 10_000);
const VOCAB = ['no', 'acute', 'cardiopulmonary', 'process', 'the', 'heart', 'size', 'is', 'normal', 'lungs', 'are', 'clear', 'there', 'small', 'left', 'right', 'pleural', 'effusion', 'pneumothorax', 'mild', 'bibasilar', 'atelectasis', 'stable', 'mediastinal', 'contours', 'within', 'limits', 'degenerative', 'changes', 'of', 'spine', 'opacity', 'lower', 'lobe', 'consolidation', 'edema', 'interstitial', 'markings', 'prominent'];

function report(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(VOCAB[(random() * VOCAB.length) | 0]! + (random() < 0.12 ? '.' : ''));
  return out.join(' ');
}

/** The limit: BLEU-2 (NLTK method1, one reference) and ROUGE-L F1 in a plain loop. */
function bareLoop(pairs: { prediction: string; reference: string }[]): number {
  let total = 0;
  for (const { prediction, reference } of pairs) {
    const h = prediction.toLowerCase().replaceAll('.', ' .').split(' ').filter(Boolean);
    const r = reference.toLowerCase().replaceAll('.', ' .').split(' ').filter(Boolean);
    let logSum = 0;
    let zero = false;
    for (const n of [1, 2]) {
      const ref = new Map<string, number>();
      for (let i = 0; i + n <= r.length; i++) { const k = n === 1 ? r[i]! : `${r[i]} ${r[i + 1]}`; ref.set(k, (ref.get(k) ?? 0) + 1); }
      let m = 0;
      for (let i = 0; i + n <= h.length; i++) { const k = n === 1 ? h[i]! : `${h[i]} ${h[i + 1]}`; const c = ref.get(k) ?? 0; if (c > 0) { m++; ref.set(k, c - 1); } }
      const d = Math.max(1, h.length - n + 1);
      if (n === 1 && m === 0) zero = true;
      logSum += 0.5 * Math.log(m === 0 ? 0.1 / d : m / d);
    }
    total += zero ? 0 : (h.length > r.length ? 1 : Math.exp(1 - r.length / h.length)) * Math.exp(logSum);
    const a = prediction.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    const b = reference.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    let prev = new Uint32Array(b.length + 1);
    let cur = new Uint32Array(b.length + 1);
    for (let i = 1; i <= a.length; i++) { for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!); [prev, cur] = [cur, prev]; }
    const lcs = prev[b.length]!;
    total += lcs === 0 ? 0 : (2 * (lcs / a.length) * (lcs / b.length)) / (lcs / a.length + lcs / b.length);
  }
  return total;
}

const random = seededRandom(14);
const pairs = Array.from({ length: PAIRS }, (_, i) => ({ id: `s${i}`, prediction: report(random, 50 + ((random() * 20) | 0)), reference: report(random, 50 + ((random() * 20) | 0)) }));
const tokens = pairs.reduce((s, p) => s + p.prediction.split(' ').length + p.reference.split(' ').length, 0);

let t = performance.now();
const bare = bareLoop(pairs);
const bareS = (performance.now() - t) / 1000;
t = performance.now();
const results = await scoreReports(pairs, { metrics: ['bleu', 'rouge_l'], resamples: 1000 });
const oursS = (performance.now() - t) / 1000;
const sameSum = Math.abs((results.metrics.bleu!.mean + results.metrics.rouge_l!.mean) * PAIRS - bare) < 1e-6 * PAIRS;
process.stdout.write(`${PAIRS} pairs, ${tokens} words: cxrbench ${oursS.toFixed(3)} s (${Math.round(tokens / oursS).toLocaleString('en')} words/s, with 1,000-resample bootstrap intervals), bare loop ${bareS.toFixed(3)} s → ratio ${(oursS / bareS).toFixed(2)}; goal ≤ 1 s: ${oursS <= 1 ? 'met' : 'NOT met'}; same values: ${sameSum ? 'yes' : 'NO'}\n`);
