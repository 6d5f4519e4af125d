/** Tokens used by a run so far (prompt and completion, as the endpoint reported them). */
export interface TokenCount {
  prompt: number;
  completion: number;
}

/** What a provider charges, in US dollars per million tokens. */
export interface Pricing {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** When a run stops asking. Either limit may be absent; a cost limit needs a price. */
export interface Budget {
  tokens: number | null;
  usd: { limit: number; pricing: Pricing } | null;
}

export const NO_BUDGET: Budget = { tokens: null, usd: null };

/** The cost of `tokens` at `pricing`, in US dollars. */
export function costUsd(tokens: TokenCount, pricing: Pricing): number {
  return (tokens.prompt * pricing.inputPerMillion + tokens.completion * pricing.outputPerMillion) / 1e6;
}

/** True once either limit is reached. In-flight requests still finish, so a run can end slightly past it. */
export function budgetReached(tokens: TokenCount, budget: Budget): boolean {
  if (budget.tokens !== null && tokens.prompt + tokens.completion >= budget.tokens) return true;
  return budget.usd !== null && costUsd(tokens, budget.usd.pricing) >= budget.usd.limit;
}

/** Reads a price given as `<input>/<output>` dollars per million tokens, e.g. `1.25/10`. */
export function parsePricing(text: string): Pricing | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  return match ? { inputPerMillion: Number(match[1]), outputPerMillion: Number(match[2]) } : null;
}
