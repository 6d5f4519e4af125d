import { LETTERS, type ImageRef, type Question } from '../core/question.js';
import type { PromptTemplate } from './template.js';

/** How images are chosen and ordered for a prompt. */
export interface ImageSelection {
  /** Send at most this many views (null: all). The cap is recorded in the manifest. */
  maxImages: number | null;
}

/** A question turned into prompt text plus the ordered images to send with it (not yet encoded). */
export interface Prompt {
  questionId: string;
  system: string | null;
  text: string;
  images: ImageRef[];
}

/** Frontal views first (the view most models are trained on), then laterals, then anything else, stable within each. */
export const IMAGE_ORDER = 'frontal (PA, AP) first, then lateral, then others; file order within each';

function viewRank(view: string | null): number {
  const v = (view ?? '').toUpperCase().replace(/[\s_-]+/g, '');
  if (/^(PA|AP|POSTEROANTERIOR|ANTEROPOSTERIOR|APSUPINE|APERECT|APPORTABLE)/.test(v) || v === 'FRONTAL') return 0;
  if (/^(LATERAL|LAT|LL|RL|LLD|RLD)/.test(v)) return 1;
  return 2;
}

/** Orders a study's images frontal first and applies the cap. */
export function selectImages(images: readonly ImageRef[], selection: ImageSelection): ImageRef[] {
  const ordered = images.map((image, index) => ({ image, index })).sort((a, b) => viewRank(a.image.view) - viewRank(b.image.view) || a.index - b.index).map((x) => x.image);
  return selection.maxImages === null ? ordered : ordered.slice(0, selection.maxImages);
}

/** "Patient: 63-year-old, sex M. Indication: Cough." — only the fields the record has. */
export function patientContext(question: Question): string {
  const age = typeof question.meta.PatientAge === 'string' || typeof question.meta.PatientAge === 'number' ? String(question.meta.PatientAge) : '';
  const sex = typeof question.meta.PatientSex === 'string' ? question.meta.PatientSex : '';
  const indication = typeof question.meta.Indication === 'string' ? question.meta.Indication.trim() : '';
  const parts: string[] = [];
  const years = /^0*(\d+)\s*Y?$/i.exec(age.trim());
  if (years || sex) parts.push(`Patient: ${years ? `${years[1]}-year-old` : ''}${years && sex ? ', ' : ''}${sex ? `sex ${sex}` : ''}.`);
  if (indication && indication !== 'None') parts.push(`Indication: ${indication}`);
  return parts.length > 0 ? `${parts.join(' ')}\n\n` : '';
}

/** Fills a template for one question. Options are written "A. text" one per line. */
export function buildPrompt(question: Question, template: PromptTemplate, options: ImageSelection & { patientContext: boolean }): Prompt {
  const images = selectImages(question.images, options);
  const fill: Record<string, string> = {
    question: question.text,
    options: question.options.map((text, i) => `${LETTERS[i]}. ${text}`).join('\n'),
    patient_context: options.patientContext ? patientContext(question) : '',
    image_count: String(images.length),
  };
  const text = template.user.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => fill[key] ?? whole);
  return { questionId: question.id, system: template.system, text, images };
}
