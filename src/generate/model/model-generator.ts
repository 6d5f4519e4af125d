import { createHash } from 'node:crypto';
import type { GenerationParams, ModelRequest } from '../../core/model-io.js';
import type { CorpusReport } from '../../corpus/corpus-report.js';
import type { AdapterSpec, ModelAdapter } from '../../models/adapter.js';
import type { RetryPolicy } from '../../runner/retry.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { imageOnlySentences } from '../minimum-necessary.js';
import { join } from 'node:path';
import { CxrError } from '../../core/errors.js';
import { runBatchRound, type BatchItem, type BatchSettings } from '../../runner/batch.js';
import { JournaledAsker } from './journaled-asker.js';
import { parseMcqReply } from './parse-mcq-reply.js';
import { BULLETS_PROMPT, MCQ_JSON_SCHEMA, MCQ_PROMPT, promptSha256, type GenerationPrompt } from './prompts.js';

export interface ModelGeneratorOptions {
  adapter: ModelAdapter;
  /** Every reply, keyed by what was asked: a rerun (after a crash or kill -9) asks nothing it already has. */
  journalFile: string;
  concurrency?: number;
  adaptiveConcurrency?: boolean;
  retry?: RetryPolicy;
  timeoutMs?: number;
  maxQuestionsPerReport?: number;
  /** Send through the provider's batch API (two rounds: bullets, then questions) instead of request by request. */
  batch?: BatchSettings & { dir: string };
  onProgress?: (done: number, total: number) => void;
}

/** What the model gave for one report: questions, and the problems of what it could not use (kept as rejections). */
export interface ReportGeneration { questions: GeneratedQuestion[]; problems: string[] }

const PARAMS: GenerationParams = { temperature: 0, maxTokens: 2048 };

/**
 * The paper's model-backed generator: report → structured bullets → MCQs, two requests per report through any
 * OpenAI-compatible endpoint, the second constrained to the MCQ JSON schema. Requests go through the runner's
 * sender (retries, back-off, timeouts, adaptive concurrency) and journal, so an interrupted run resumes without
 * asking again; a failed or unusable reply is a recorded problem of that report, never a crash.
 */
export class ModelGenerator {
  private readonly options: Required<Omit<ModelGeneratorOptions, 'onProgress' | 'batch'>> & Pick<ModelGeneratorOptions, 'onProgress' | 'batch'>;

  constructor(options: ModelGeneratorOptions) {
    this.options = { concurrency: 8, adaptiveConcurrency: true, retry: { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 }, timeoutMs: 120_000, maxQuestionsPerReport: 6, ...options };
  }

  /** What the card and every question record about the generator. */
  get description(): GeneratedQuestion['generator'] {
    return { kind: 'model', name: 'cxrbench-model-generator', version: '1', model: this.options.adapter.spec.name, prompt: { id: MCQ_PROMPT.id, version: MCQ_PROMPT.version, sha256: promptSha256(MCQ_PROMPT) } };
  }

  get spec(): AdapterSpec {
    return this.options.adapter.spec;
  }

  private keyOf(prompt: GenerationPrompt, text: string): string {
    return createHash('sha256').update(JSON.stringify([this.options.adapter.spec, PARAMS, promptSha256(prompt), text])).digest('hex');
  }

  private request(prompt: GenerationPrompt, fill: Record<string, string>, key: string, params: GenerationParams): ModelRequest {
    const user = prompt.user.replace(/\{\{(\w+)\}\}/g, (_, name: string) => fill[name] ?? '');
    return { questionId: key, messages: [{ role: 'system', content: prompt.system }, { role: 'user', content: [{ type: 'text', text: user }] }], params };
  }

  /**
   * The batch mode: every bullets request not yet answered goes into batch jobs, then every questions request
   * built from the bullets; both rounds resume from their jobs files. Afterwards the asker answers from the journal
   * only (a failed batch item stays a failure of its report, it is not re-sent one by one).
   */
  private async batchRounds(reports: CorpusReport[], asker: JournaledAsker, bulletsRequest: (r: CorpusReport) => ModelRequest | null, mcqRequest: (bullets: string) => ModelRequest): Promise<void> {
    const api = this.options.adapter.batch;
    if (!api) throw new CxrError('model-config', `${this.options.adapter.spec.name}: this endpoint has no batch API; leave out --batch`);
    const batch = this.options.batch!;
    const round = (name: string) => ({ api, dir: join(batch.dir, name), jobsFile: join(batch.dir, `${name}.json`), latest: asker.journal, journal: asker.writer, settings: batch, signal: asker.stop.signal, skip: (id: string) => asker.journal.get(id) !== undefined });
    async function* bulletItems(): AsyncGenerator<BatchItem> {
      for (const report of reports) {
        const request = bulletsRequest(report);
        if (request) yield { id: request.questionId, request: async () => request };
      }
    }
    await runBatchRound(bulletItems(), round('bullets'));
    const reader = asker.journal.reader();
    const bulletTexts: string[] = [];
    try {
      for (const report of reports) {
        const request = bulletsRequest(report);
        const answer = request ? reader.read(request.questionId) : undefined;
        if (answer?.response && !answer.error) bulletTexts.push(answer.response.text.trim());
      }
    } finally {
      reader.close();
    }
    async function* mcqItems(): AsyncGenerator<BatchItem> {
      for (const text of bulletTexts) {
        const request = mcqRequest(text);
        yield { id: request.questionId, request: async () => request };
      }
    }
    await runBatchRound(mcqItems(), round('questions'));
    asker.offline = true;
  }

  /** Generates for every report, several at once; returns what each gave. */
  async generateAll(reports: CorpusReport[], signal?: AbortSignal): Promise<Map<string, ReportGeneration>> {
    const { journalFile, adapter, retry, timeoutMs, concurrency, adaptiveConcurrency, onProgress } = this.options;
    const asker = new JournaledAsker({ adapter, journalFile, concurrency, adaptiveConcurrency, retry, timeoutMs }, signal);
    const ask = (req: ModelRequest) => asker.ask(req);
    const stop = asker.stop;
    const results = new Map<string, ReportGeneration>();
    let done = 0;
    const bulletsRequest = (report: CorpusReport): ModelRequest | null => {
      const findings = imageOnlySentences(report.sections.findings) ?? '';
      const impression = imageOnlySentences(report.sections.impression) ?? '';
      return findings || impression ? this.request(BULLETS_PROMPT, { findings, impression }, this.keyOf(BULLETS_PROMPT, `${findings}\n${impression}`), PARAMS) : null;
    };
    const mcqRequest = (bulletText: string) =>
      this.request(MCQ_PROMPT, { bullets: bulletText, max: String(this.options.maxQuestionsPerReport) }, this.keyOf(MCQ_PROMPT, bulletText), { ...PARAMS, jsonSchema: { name: 'rexvqa_questions', schema: MCQ_JSON_SCHEMA } });
    if (this.options.batch) await this.batchRounds(reports, asker, bulletsRequest, mcqRequest);
    const one = async (report: CorpusReport): Promise<void> => {
      const bulletsReq = bulletsRequest(report);
      if (!bulletsReq) {
        results.set(report.id, { questions: [], problems: ['no findings or impression sentence about the image to send'] });
        return;
      }
      const bullets = await ask(bulletsReq);
      if (!bullets) return; // stopped: asked again on resume
      if (bullets.error || !bullets.response) {
        results.set(report.id, { questions: [], problems: [`bullets request failed: ${bullets.error?.kind ?? 'no response'}: ${bullets.error?.message ?? ''}`.trim()] });
        return;
      }
      const bulletText = bullets.response.text.trim();
      const mcq = await ask(mcqRequest(bulletText));
      if (!mcq) return;
      if (mcq.error || !mcq.response) {
        results.set(report.id, { questions: [], problems: [`MCQ request failed: ${mcq.error?.kind ?? 'no response'}: ${mcq.error?.message ?? ''}`.trim()] });
        return;
      }
      const parsed = parseMcqReply(mcq.response.text);
      results.set(report.id, {
        problems: parsed.problems,
        questions: parsed.questions.slice(0, this.options.maxQuestionsPerReport).map((q, i) => ({
          id: `${report.id}#m${i}`, reportId: report.id, patientId: report.patientId, task: q.task_name, category: q.category, subcategory: q.subcategory,
          question: q.question, options: q.options as [string, string, string, string], answer: q.answer, explanation: q.explanation, difficulty: q.difficulty,
          claim: null, evidence: { section: 'bullets', sentence: bulletText.slice(0, 2000) }, generator: this.description, images: report.images,
        })),
      });
    };
    try {
      const pending = new Set<Promise<void>>();
      for (const report of reports) {
        if (stop.signal.aborted) break;
        const task = one(report).finally(() => {
          pending.delete(task);
          onProgress?.(++done, reports.length);
        });
        pending.add(task);
        // Keep at most twice the concurrency of reports in flight (each report is two requests in a row).
        if (pending.size >= 2 * concurrency) await Promise.race(pending);
      }
      await Promise.all(pending);
    } finally {
      asker.close();
    }
    return results;
  }
}
