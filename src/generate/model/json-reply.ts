import type { z } from 'zod';

/** A model's JSON reply (bare or inside a ```json fence) checked against a schema; null when it is neither. */
export function parseJsonReply<T>(text: string, schema: z.ZodType<T>): T | null {
  let value: unknown;
  try {
    value = JSON.parse(/```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1] ?? text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
