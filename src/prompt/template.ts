import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CxrError } from '../core/errors.js';

/**
 * A prompt template: data, not code. `user` may use {{question}}, {{options}}, {{patient_context}} and
 * {{image_count}}; `system` may be null for models without a system role. The file's sha256 goes into the
 * run manifest, so a changed template is never mistaken for the old one. An `open` template (`eval --open`) asks
 * the question without its options, so it must not contain {{options}}; a multiple-choice one must.
 */
export const PromptTemplateFile = z
  .object({
    name: z.string().min(1),
    version: z.string().min(1),
    mode: z.enum(['multiple-choice', 'open']).default('multiple-choice'),
    description: z.string().default(''),
    system: z.string().nullable(),
    user: z.string().min(1).refine((u) => u.includes('{{question}}'), 'the user template must contain {{question}}'),
  })
  .superRefine((t, ctx) => {
    const hasOptions = t.user.includes('{{options}}');
    if (t.mode === 'multiple-choice' && !hasOptions) ctx.addIssue({ code: 'custom', path: ['user'], message: 'a multiple-choice template must contain {{options}} (set "mode": "open" for a question without options)' });
    if (t.mode === 'open' && hasOptions) ctx.addIssue({ code: 'custom', path: ['user'], message: 'an open template asks the question without its options: remove {{options}}' });
  });

/** A loaded template with its content hash. */
export interface PromptTemplate extends z.infer<typeof PromptTemplateFile> {
  sha256: string;
}

/** The templates shipped with cxrbench. */
export const BUILT_IN_TEMPLATES = ['rexvqa-json', 'rexvqa-letter', 'rexvqa-boxed', 'rexvqa-answer-only', 'rexvqa-explain-answer', 'rexvqa-open'] as const;

/** The built-in template `eval --open` uses unless `--prompt` names another open one. */
export const DEFAULT_OPEN_TEMPLATE = 'rexvqa-open';

const templatesDir = fileURLToPath(new URL('./templates/', import.meta.url));

/** Parses template file content; `source` names the file in error messages. */
export function parseTemplate(text: string, source: string): PromptTemplate {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CxrError('bad-option', `${source}: the prompt template is not valid JSON (${(error as Error).message})`);
  }
  const parsed = PromptTemplateFile.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `field ${i.path.join('.') || '(file)'}: ${i.message}`).join('; ');
    throw new CxrError('bad-option', `${source}: invalid prompt template — ${problems}`);
  }
  return { ...parsed.data, sha256: createHash('sha256').update(text).digest('hex') };
}

/** True when `--prompt` names a user template's file (anything with a / or ending in .json), not a built-in one. */
export function isTemplatePath(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || nameOrPath.endsWith('.json');
}

/** Loads a built-in template by name, or a user template from a file path ({@link isTemplatePath}). */
export function loadTemplate(nameOrPath: string): PromptTemplate {
  const isPath = isTemplatePath(nameOrPath);
  if (!isPath && !(BUILT_IN_TEMPLATES as readonly string[]).includes(nameOrPath)) {
    throw new CxrError('bad-option', `--prompt ${nameOrPath}: no such built-in template (${BUILT_IN_TEMPLATES.join(', ')}); give a path to use your own`);
  }
  const file = isPath ? nameOrPath : `${templatesDir}${nameOrPath}.json`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CxrError('unreadable-file', `${file}: cannot read the prompt template`);
  }
  return parseTemplate(text, file);
}
