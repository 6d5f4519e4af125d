import { evaluateSettings, type EvaluateSettings } from '../../src/cli/evaluate.js';

/** Evaluation settings with fast retries and short timeouts, for tests; override what a test is about. */
export function evalSettings(overrides: Partial<EvaluateSettings> & Pick<EvaluateSettings, 'data' | 'model' | 'out'>): EvaluateSettings {
  return evaluateSettings({ concurrency: 4, maxAttempts: 3, timeoutMs: 2000, retryBaseMs: 10, maxTokens: 64, ...overrides });
}
