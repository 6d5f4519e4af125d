import { z } from 'zod';

/** The two ReXrank tracks: the findings section alone, or findings and impression. */
export const TRACKS = ['findings', 'findings-impression'] as const;
export type Track = (typeof TRACKS)[number];

/** One study to score: the model's report and the reference text of the track. */
export interface ReportPair {
  id: string;
  prediction: string;
  reference: string;
}

/** What reading a predictions (and references) file found: the pairs, and every problem naming study and field. */
export interface ReadPairs {
  pairs: ReportPair[];
  /** Studies whose prediction is missing or empty: scored as an empty report, and named. */
  emptyPredictions: string[];
  problems: string[];
}

const MISSING = new Set(['', 'none', 'nan', 'null']);

/**
 * The most characters one report may have — a prediction, or a reference's text for the track. Real radiology
 * reports have fewer than 1,000 words (about 7,000 characters); this leaves room for a model's runaway output of
 * some 12,000 tokens. It bounds the time ROUGE-L takes, the one metric here whose work grows with the product of the
 * two lengths (about 0.1 s for a pair at the limit). ReXrank's metrics' own code does not cut reports for BLEU or
 * ROUGE-L (rouge-score and pycocoevalcap build the whole LCS table); its model metrics cut them (BERTScore and
 * CheXbert at 512 tokens, GREEN at 200 words), which is why a longer report is refused rather than cut here.
 */
export const MAX_REPORT_CHARACTERS = 50_000;

/**
 * The largest predictions or references file read: about three times ReXrank's largest test set with its
 * predictions (ReXGradient's 10,000 studies; MIMIC-CXR's 2,347 are 4 MB).
 */
export const MAX_REPORT_FILE_BYTES = 128 * 1024 * 1024;

/** A report section as ReXrank files hold it: text, or missing (null, absent, "None", "nan"). */
function section(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return MISSING.has(value.trim().toLowerCase()) ? null : value;
}

/**
 * The reference text of a track, as ReXrank builds it: the findings section, or
 * `Findings: {findings} Impression: {impression}` with a missing section written `None`. Null when the track has no
 * text at all (every section missing): such a study cannot be scored.
 */
export function referenceText(record: Record<string, unknown>, track: Track): string | null {
  const findings = section(record.section_findings);
  if (track === 'findings') return findings;
  const impression = section(record.section_impression);
  if (findings === null && impression === null) return null;
  return `Findings: ${findings ?? 'None'} Impression: ${impression ?? 'None'}`;
}

const JsonlLine = z.object({ id: z.union([z.string().min(1), z.number()]).transform(String), prediction: z.unknown(), reference: z.unknown() }).passthrough();

function characters(text: string): string {
  return `${text.length.toLocaleString('en-US')} characters`;
}

function shortId(id: string): string {
  return id.length > 60 ? `${id.slice(0, 60)}… (${id.length - 60} more characters)` : id;
}

/**
 * Reads report pairs from ReXrank's RRG JSON (an object keyed by study: `model_prediction` and the reference fields
 * `section_findings`, `section_impression`, `report`) or JSON Lines `{id, prediction, reference}`. With `references`
 * (a ReXrank JSON of the references, e.g. the board's hidden file) the predictions file only needs
 * `model_prediction`, and ids missing or extra on either side are problems, listed with their counts. A report
 * longer than MAX_REPORT_CHARACTERS is a problem naming the file, the study and the field.
 * Never throws for content: every problem names the study (or line) and the field.
 */
export function readReportPairs(content: string, fileName: string, track: Track, references?: { content: string; fileName: string } | ReadonlyMap<string, string>): ReadPairs {
  const problems: string[] = [];
  const emptyPredictions: string[] = [];
  const predictions = new Map<string, unknown>();
  const refs = new Map<string, string | null>();
  const jsonl = fileName.toLowerCase().endsWith('.jsonl');
  if (jsonl) {
    content.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        problems.push(`${fileName} line ${i + 1}: not JSON (${(error as Error).message.slice(0, 80)})`);
        return;
      }
      const parsed = JsonlLine.safeParse(value);
      if (!parsed.success) {
        problems.push(`${fileName} line ${i + 1}: needs "id" (text), "prediction" and "reference"`);
        return;
      }
      if (predictions.has(parsed.data.id)) problems.push(`${fileName} line ${i + 1}: study ${shortId(parsed.data.id)} appears twice`);
      predictions.set(parsed.data.id, parsed.data.prediction);
      if (!references) refs.set(parsed.data.id, typeof parsed.data.reference === 'string' && parsed.data.reference.trim() ? parsed.data.reference : null);
    });
  } else {
    const object = parseObject(content, fileName, problems);
    for (const [id, record] of Object.entries(object ?? {})) {
      if (!record || typeof record !== 'object' || Array.isArray(record)) {
        problems.push(`${fileName}: study ${shortId(id)} is not an object with "model_prediction"`);
        continue;
      }
      predictions.set(id, (record as Record<string, unknown>).model_prediction);
      if (!references) refs.set(id, referenceText(record as Record<string, unknown>, track));
    }
  }
  if (references instanceof Map) {
    // References already built (a board's hidden set): the text of the track, by study.
    for (const [id, text] of references) refs.set(id, text);
  } else if (references) {
    const file = references as { content: string; fileName: string };
    const object = parseObject(file.content, file.fileName, problems);
    for (const [id, record] of Object.entries(object ?? {})) refs.set(id, record && typeof record === 'object' ? referenceText(record as Record<string, unknown>, track) : null);
  }
  if (references) {
    const missing = [...refs.keys()].filter((id) => !predictions.has(id));
    const extra = [...predictions.keys()].filter((id) => !refs.has(id));
    const list = (ids: string[]) => `${ids.slice(0, 5).map(shortId).join(', ')}${ids.length > 5 ? ', …' : ''}`;
    if (missing.length) problems.push(`${missing.length} stud${missing.length === 1 ? 'y of the references has' : 'ies of the references have'} no prediction: ${list(missing)}`);
    if (extra.length) problems.push(`${extra.length} predicted stud${extra.length === 1 ? 'y is' : 'ies are'} not in the references: ${list(extra)}`);
  }
  const pairs: ReportPair[] = [];
  // A board's hidden references (a Map) are its host's, loaded before any upload: a problem about one would tell
  // the uploader something about the gold, so only the files given here are checked for length.
  const referencesName = references instanceof Map ? null : references ? (references as { fileName: string }).fileName : fileName;
  for (const [id, reference] of refs) {
    if (!predictions.has(id) && references) continue;
    const field = jsonl ? 'reference' : track === 'findings' ? 'section_findings' : 'section_findings and section_impression';
    if (reference === null) {
      problems.push(`study ${shortId(id)}: no reference text for the ${track} track (${field} ${track === 'findings' ? 'is' : 'are'} None or missing)`);
      continue;
    }
    const prediction = predictions.get(id);
    if (prediction !== undefined && prediction !== null && typeof prediction !== 'string') {
      problems.push(`study ${shortId(id)}: ${jsonl ? 'prediction' : 'model_prediction'} is ${Array.isArray(prediction) ? 'a list' : typeof prediction}, not text`);
      continue;
    }
    const text = typeof prediction === 'string' ? prediction : '';
    const longReports = [
      text.length > MAX_REPORT_CHARACTERS && `${fileName}: study ${shortId(id)}: ${jsonl ? 'prediction' : 'model_prediction'} is ${characters(text)}`,
      referencesName !== null && reference.length > MAX_REPORT_CHARACTERS && `${referencesName}: study ${shortId(id)}: ${track === 'findings' || jsonl ? field : 'the findings-impression reference built from section_findings and section_impression'} is ${characters(reference)}`,
    ].filter((p): p is string => p !== false);
    for (const p of longReports) problems.push(`${p} long; a report may have at most ${MAX_REPORT_CHARACTERS.toLocaleString('en-US')} (real reports have fewer than 1,000 words)`);
    if (longReports.length > 0) continue;
    if (!text.trim()) emptyPredictions.push(id);
    pairs.push({ id, prediction: text, reference });
  }
  if (pairs.length === 0 && problems.length === 0) problems.push(`${fileName}: no study to score`);
  return { pairs, emptyPredictions, problems };
}

function parseObject(content: string, fileName: string, problems: string[]): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(content.replace(/^\uFEFF/, ''));
  } catch (error) {
    problems.push(`${fileName}: not JSON (${(error as Error).message.slice(0, 120)}); expected ReXrank's JSON keyed by study, or a .jsonl file`);
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${fileName}: expected a JSON object keyed by study id (ReXrank's format), found ${Array.isArray(value) ? 'a list' : typeof value}`);
    return null;
  }
  return value as Record<string, unknown>;
}
