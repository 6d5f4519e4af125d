import { z } from 'zod';

const optionalText = (max: number, what: string) =>
  z.string().trim().max(max, `${what} can be at most ${max} characters`).optional().transform((v) => (v ? v : undefined)).optional();

/** What a submitter says about the model. Free text is stored as given and always rendered escaped. */
export const ModelCard = z.object({
  name: z.string({ error: 'a model name is required' }).trim().min(1, 'a model name is required').max(120, 'the model name can be at most 120 characters'),
  organisation: optionalText(120, 'the organisation'),
  url: optionalText(300, 'the model URL').refine((v) => v === undefined || /^https?:\/\//.test(v), 'the model URL must start with http:// or https://'),
  paper: optionalText(300, 'the paper URL').refine((v) => v === undefined || /^https?:\/\//.test(v), 'the paper URL must start with http:// or https://'),
  /** Whether the weights are public; null (or left out) when the submitter did not say — shown as "—", never as "no". */
  openWeights: z.boolean({ error: 'open weights is true, false, or null (not said)' }).nullable().default(null),
  /** Billions of parameters. */
  parametersBillion: z.number({ error: 'the number of parameters must be a number (billions, e.g. 7.5)' }).positive('the number of parameters must be above 0').max(100_000, 'the number of parameters is in billions: at most 100,000').optional(),
  /** When the model was released or submitted (YYYY-MM-DD). */
  date: optionalText(10, 'the date').refine((v) => v === undefined || (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v)), 'the date must be a real day written YYYY-MM-DD'),
  prompt: optionalText(4000, 'the prompt'),
  notes: optionalText(2000, 'the notes'),
});
export type ModelCard = z.infer<typeof ModelCard>;

/** What a form's open-weights choice means: "true" (or a ticked box's "on") yes, "false" no, anything else not said. */
function openWeightsFromForm(value: string | undefined): boolean | null {
  if (value === 'true' || value === 'on') return true;
  return value === 'false' ? false : null;
}

/** Reads a model card from form fields (strings), with zod's messages on failure. */
export function modelCardFromForm(fields: Record<string, string | undefined>): z.ZodSafeParseResult<ModelCard> {
  const params = fields.parametersBillion?.trim();
  return ModelCard.safeParse({
    name: fields.name ?? '',
    organisation: fields.organisation,
    url: fields.url,
    paper: fields.paper,
    openWeights: openWeightsFromForm(fields.openWeights),
    ...(params ? { parametersBillion: Number(params) } : {}),
    date: fields.date,
    prompt: fields.prompt,
    notes: fields.notes,
  });
}
