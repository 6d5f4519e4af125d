import { z } from 'zod';
import { CxrError } from '../../core/errors.js';
import { bioSpans, rateSentences } from '../ratescore-ner.js';
import { RATESCORE_TYPES, type RateEntity, type RateEntityType } from '../ratescore.js';
import { readFolderJson, type ModelFolder } from './model-folder.js';
import type { OnnxTextEncoder, TextStates } from './text-encoder.js';

/** RaTEScore tokenizes a sentence for RaTE-NER with max_length 512, and an entity for its encoder with max_length 30 (RaTEScore/score.py). */
export const RATESCORE_NER_MAX_LENGTH = 512;
export const RATESCORE_ENTITY_MAX_LENGTH = 30;

const ModelConfig = z.looseObject({ id2label: z.record(z.string().regex(/^\d+$/), z.string()) });

/**
 * The NER folder's labels by output index, from its config.json (`id2label`, as transformers saves a token
 * classifier). Every label must be `O` or `B-`/`I-` with one of RaTEScore's five entity types: any other type has
 * no weight in the metric, so the folder is refused naming it.
 */
export function readNerLabels(folder: ModelFolder): string[] {
  const parsed = ModelConfig.safeParse(readFolderJson(folder, 'config.json'));
  const where = `${folder.label} ONNX model folder ${folder.dir}: config.json`;
  if (!parsed.success) throw new CxrError('model-config', `${where} has no id2label (the label of each output, as transformers saves a token classifier)`);
  const labels: string[] = [];
  for (const [index, label] of Object.entries(parsed.data.id2label)) labels[Number(index)] = label;
  const holes = [...labels.keys()].filter((i) => labels[i] === undefined);
  if (holes.length > 0) throw new CxrError('model-config', `${where}: id2label has no label for output ${holes.join(', ')}`);
  const foreign = labels.filter((l) => l !== 'O' && !(/^[BI]-/.test(l) && (RATESCORE_TYPES as readonly string[]).includes(l.slice(2).toUpperCase())));
  if (foreign.length > 0) throw new CxrError('model-config', `${where}: label ${foreign.join(', ')} is not O, B-<type> or I-<type> with a RaTEScore type (${RATESCORE_TYPES.join(', ')})`);
  return labels;
}

/** Each token's label: the output with the largest logit (the first on a tie, as torch.argmax). */
function tokenLabels(t: TextStates, labels: readonly string[], where: string): string[] {
  if (t.hidden !== labels.length) throw new CxrError('model-config', `${where}: the network gives ${t.hidden} logits per token but config.json names ${labels.length} labels`);
  return t.special.map((_, i) => {
    let best = 0;
    for (let k = 1; k < t.hidden; k++) if (t.states[i * t.hidden + k]! > t.states[i * t.hidden + best]!) best = k;
    return labels[best]!;
  });
}

/**
 * RaTEScore's entities of each text, from the two networks run here: the text cut into sentences, each sentence
 * tagged by RaTE-NER and its labels grouped into entities as RaTEScore groups them (ratescore-ner.ts), the entity's
 * text decoded from its tokens, then every entity embedded by the encoder — its [CLS] vector, the first position.
 */
export async function onnxRatescoreEntities(texts: readonly string[], ner: { model: OnnxTextEncoder; labels: readonly string[]; folder: ModelFolder }, encoder: OnnxTextEncoder, batchSize: number): Promise<RateEntity[][]> {
  const sentences = texts.map(rateSentences);
  const tagged = await ner.model.run(sentences.flat(), batchSize);
  const where = `${ner.folder.label} ONNX model folder ${ner.folder.dir}`;
  let next = 0;
  const found = sentences.map((report) => report.flatMap(() => {
    const t = tagged[next++]!;
    return bioSpans(tokenLabels(t, ner.labels, where), t.special).map((s) => ({
      text: ner.model.decode(t.ids.slice(s.start, s.end + 1)),
      type: s.type.toUpperCase() as RateEntityType,
    }));
  }));
  const embedded = await encoder.run(found.flat().map((e) => e.text), batchSize);
  next = 0;
  return found.map((report) => report.map((e) => {
    const t = embedded[next++]!;
    return { ...e, embedding: Array.from(t.states.subarray(0, t.hidden)) };
  }));
}
