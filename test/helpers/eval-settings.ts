import type { EvaluateSettings } from '../../src/cli/evaluate.js';

/** Evaluation settings with fast retries, for tests; override what a test is about. */
export function evalSettings(overrides: Partial<EvaluateSettings> & Pick<EvaluateSettings, 'data' | 'model' | 'out'>): EvaluateSettings {
  return {
    split: 'test', endpoint: [], header: [], query: [], systemPrompt: true, imageDetail: null,
    prompt: 'rexvqa-json', patientContext: false, maxImages: null, maxPixels: null,
    temperature: 0, maxTokens: 64, seed: 0, concurrency: 4, adaptive: false, maxAttempts: 3, timeoutMs: 2000, retryBaseMs: 10,
    tokenBudget: null, retryErrors: false, strict: false, limit: null,
    ...overrides,
  };
}
