import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEMO_DATASET } from '../../src/cli/commands/demo-dataset.js';
import { corpusFromQuestions } from '../../src/corpus/from-questions.js';
import { detectLayout } from '../../src/dataset/layout.js';
import { readQuestions } from '../../src/dataset/read-dataset.js';
import { generateQuestionSet } from '../../src/generate/pipeline.js';
import { createUser, type User } from '../../src/store/accounts.js';
import type { Store } from '../../src/store/connect.js';
import { tempDir } from './records.js';

export const PASSWORD = 'a long review password';

/** Board accounts for review tests: an admin, and reviewers named as given (email `<name>@lab.org`). */
export async function reviewAccounts<N extends string>(store: Store, names: readonly N[]): Promise<Record<N | 'admin', User>> {
  const out = {} as Record<N | 'admin', User>;
  out.admin = await createUser(store, { email: 'admin@lab.org', password: PASSWORD, displayName: 'Admin', admin: true });
  for (const name of names) out[name] = await createUser(store, { email: `${name}@lab.org`, password: PASSWORD, displayName: name[0]!.toUpperCase() + name.slice(1) });
  return out;
}

/** A decision as the form sends it, with sensible ratings; override what the test is about. */
export function decisionInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { clinical_quality: 4, explanation_clarity: 4, factual_correctness: 4, image_alignment: 4, difficulty: 'medium', category: 'Lung', decision: 'accept', reason: null, ...overrides };
}

/** Signs in through the real form; returns the session cookie and its CSRF token (read off the account page). */
export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<{ cookie: string; csrf: string }> {
  const res = await app.inject({ method: 'POST', url: '/login', payload: { email, password } });
  if (res.statusCode !== 303) throw new Error(`login failed ${res.statusCode}: ${res.body.slice(0, 200)}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const account = await app.inject({ method: 'GET', url: '/account', headers: { cookie } });
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(account.body)![1]! };
}

/** Runs the offline question generation on the demo's reports, as `cxrbench demo` does; returns the output folder. */
export async function generatedDemoSet(): Promise<string> {
  const layout = detectLayout(DEMO_DATASET);
  const fileOf = new Map(layout.files.map((f) => [f.split, f.path]));
  const reports = await corpusFromQuestions(readQuestions(layout), (q) => fileOf.get(q.split) ?? layout.root);
  const out = join(tempDir(), 'generated');
  mkdirSync(out, { recursive: true });
  const corpus = join(out, 'corpus.jsonl');
  writeFileSync(corpus, reports.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await generateQuestionSet({ corpus, out, seed: 0, similarity: 0.9, reviewRate: 0.1, splits: { train: 0.8, valid: 0.1, test: 0.1 } });
  return out;
}

/** Text of an HTML fragment as a reader sees it: tags dropped, the escapes the views write decoded, spaces collapsed. */
export function textOf(fragment: string): string {
  return fragment.replace(/<[^>]+>/g, ' ').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&').replace(/\s+/g, ' ').trim();
}

/** The cells of the table with this id, row by row (header rows included), as text; null when the page has no such table. */
export function tableRows(body: string, id: string): string[][] | null {
  const table = new RegExp(`<table[^>]* id="${id}"[^>]*>([^]*?)</table>`).exec(body);
  if (!table) return null;
  return [...table[1]!.matchAll(/<tr[^>]*>([^]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<t[hd][^>]*>([^]*?)<\/t[hd]>/g)].map((cell) => textOf(cell[1]!)));
}
