import { z } from 'zod';

const optionalText = (max: number) => z.string().trim().max(max).optional().transform((v) => (v ? v : undefined)).optional();

/** What a submitter says about the model. Free text is stored as given and always rendered escaped. */
export const ModelCard = z.object({
  name: z.string().trim().min(1, 'a model name is required').max(120),
  organisation: optionalText(120),
  url: optionalText(300).refine((v) => v === undefined || /^https?:\/\//.test(v), 'url must start with http:// or https://'),
  paper: optionalText(300).refine((v) => v === undefined || /^https?:\/\//.test(v), 'paper must be a link starting with http:// or https://'),
  openWeights: z.boolean().default(false),
  /** Billions of parameters. */
  parametersBillion: z.number().positive().max(100_000).optional(),
  /** When the model was released or submitted (YYYY-MM-DD). */
  date: optionalText(10).refine((v) => v === undefined || /^\d{4}-\d{2}-\d{2}$/.test(v), 'date must be YYYY-MM-DD'),
  prompt: optionalText(4000),
  notes: optionalText(2000),
});
export type ModelCard = z.infer<typeof ModelCard>;

/** Reads a model card from form fields (strings; checkbox "on"), with zod's messages on failure. */
export function modelCardFromForm(fields: Record<string, string | undefined>): z.ZodSafeParseResult<ModelCard> {
  const params = fields.parametersBillion?.trim();
  return ModelCard.safeParse({
    name: fields.name ?? '',
    organisation: fields.organisation,
    url: fields.url,
    paper: fields.paper,
    openWeights: fields.openWeights === 'on' || fields.openWeights === 'true',
    ...(params ? { parametersBillion: Number(params) } : {}),
    date: fields.date,
    prompt: fields.prompt,
    notes: fields.notes,
  });
}
