import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ModelAdapter } from '../../models/adapter.js';
import { SECTION_NAMES, type CorpusReport } from '../../corpus/corpus-report.js';
import { parseJsonReply } from './json-reply.js';
import { JournaledAsker } from './journaled-asker.js';
import { promptSha256, type GenerationPrompt } from './prompts.js';

export const PHI_PROMPT: GenerationPrompt = {
  id: 'cxrbench-phi-finder',
  version: '1',
  changelog: ['1: first version — list every HIPAA Safe Harbor identifier, verbatim, with its kind.'],
  system: 'You de-identify radiology reports. You list identifiers exactly as they are written and never invent any. Reply with JSON only.',
  user: [
    'List every identifier in the report text below that HIPAA Safe Harbor requires removing: names of people, dates more specific than a year, ages over 89, phone and fax numbers, e-mail addresses, medical record, accession, account, licence and device numbers, street addresses, cities and postal codes, URLs, IP addresses and any other unique code.',
    'Give each exactly as it appears in the text. Text already shown as [REDACTED:…] is done. Eponyms (Kerley B lines, Swan-Ganz) and clinical numbers (5 mm, T7) are not identifiers.',
    '',
    'TEXT:',
    '{{text}}',
  ].join('\n'),
};

const SCHEMA: Record<string, unknown> = {
  type: 'object', additionalProperties: false, required: ['identifiers'],
  properties: { identifiers: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['text', 'kind'], properties: { text: { type: 'string' }, kind: { type: 'string' } } } } },
};
const Reply = z.object({ identifiers: z.array(z.object({ text: z.string(), kind: z.string() })) });

/**
 * A model that finds identifiers the rules missed (optional, after the rule-based screen): each report's text is
 * sent once (journaled), and every identifier the model lists that occurs verbatim in the text is redacted.
 * A report the model could not be asked about, or whose reply is unreadable, is reported so, never passed silently.
 */
export class PhiModel {
  constructor(private readonly options: { adapter: ModelAdapter; journalFile: string; concurrency?: number }) {}

  get description(): { model: string; prompt: { id: string; version: string; sha256: string } } {
    return { model: this.options.adapter.spec.name, prompt: { id: PHI_PROMPT.id, version: PHI_PROMPT.version, sha256: promptSha256(PHI_PROMPT) } };
  }

  /** The reports with what the model found redacted, the kinds found per report, and the reports it could not screen. */
  async screen(reports: CorpusReport[], signal?: AbortSignal): Promise<{ reports: CorpusReport[]; kinds: Map<string, string[]>; unscreened: Map<string, string> }> {
    const asker = new JournaledAsker({ adapter: this.options.adapter, journalFile: this.options.journalFile, concurrency: this.options.concurrency ?? 8, adaptiveConcurrency: true, retry: { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 }, timeoutMs: 120_000 }, signal);
    const kinds = new Map<string, string[]>();
    const unscreened = new Map<string, string>();
    try {
      const screened = await Promise.all(reports.map(async (report) => {
        const text = SECTION_NAMES.map((s) => report.sections[s]).filter((t): t is string => t !== null).join('\n');
        if (text.trim() === '') return report;
        const user = PHI_PROMPT.user.replace('{{text}}', text);
        const key = createHash('sha256').update(JSON.stringify([this.options.adapter.spec, promptSha256(PHI_PROMPT), text])).digest('hex');
        const prediction = await asker.ask({ questionId: key, messages: [{ role: 'system', content: PHI_PROMPT.system }, { role: 'user', content: [{ type: 'text', text: user }] }], params: { temperature: 0, maxTokens: 1024, jsonSchema: { name: 'identifiers', schema: SCHEMA } } });
        if (!prediction || prediction.error || !prediction.response) {
          unscreened.set(report.id, prediction?.error ? `${prediction.error.kind}: ${prediction.error.message}` : 'not asked');
          return report;
        }
        const reply = parseJsonReply(prediction.response.text, Reply);
        if (!reply) {
          unscreened.set(report.id, 'unreadable reply');
          return report;
        }
        const found = reply.identifiers.filter((i) => i.text.trim().length >= 2 && !i.text.includes('[REDACTED'));
        if (found.length === 0) return report;
        kinds.set(report.id, [...new Set(found.map((i) => i.kind.toLowerCase().replace(/[^a-z_]/g, '_')))]);
        // Longest first, so "Dr. Ann Lee" goes before "Ann Lee".
        const ordered = [...found].sort((a, b) => b.text.length - a.text.length);
        const sections = { ...report.sections };
        for (const name of SECTION_NAMES) {
          let t = sections[name];
          if (t === null) continue;
          for (const i of ordered) t = t.split(i.text).join(`[REDACTED:${i.kind.toLowerCase().replace(/[^a-z_]/g, '_')}]`);
          sections[name] = t;
        }
        return { ...report, sections };
      }));
      return { reports: screened, kinds, unscreened };
    } finally {
      asker.close();
    }
  }
}
