import { z } from 'zod';

/** Strips an "A. " / "A) " prefix from an option text, so prefixed and bare options both work. */
export function stripOptionPrefix(option: string): string {
  return option.replace(/^\s*(?:\(([A-Da-d])\)|([A-Da-d])\s*(?:[.):]|-\s))\s*/, '');
}

/** One line of `cxrbench extract --in`: an id, the model's raw output, and optionally the four options and the question. */
export const ExtractInputLine = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  output: z.string().nullable(),
  options: z.array(z.string()).length(4).transform((o) => o.map(stripOptionPrefix)).optional(),
  question: z.string().optional(),
});

/** A parsed input line. */
export type ExtractInputLine = z.infer<typeof ExtractInputLine>;
