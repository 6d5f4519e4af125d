import { CxrError } from '../core/errors.js';
import { checkModelFolder, type ModelFolder } from './onnx/model-folder.js';
import { onnxRatescoreEntities, RATESCORE_ENTITY_MAX_LENGTH, RATESCORE_NER_MAX_LENGTH, readNerLabels } from './onnx/ratescore-models.js';
import { OnnxTextEncoder, type TextStates } from './onnx/text-encoder.js';
import type { RateEntity } from './ratescore.js';
import type { ModelMetricBackend } from './scoring-service.js';

/** Where the networks are: a folder per metric, each as Hugging Face exports a model to ONNX (docs/rrg.md). */
export interface OnnxBackendOptions {
  /** Token-embedding model for BERTScore (distilroberta-base cut to 5 layers, as ReXrank runs it). */
  bertscore?: string;
  /** CheXbert's BERT encoder for SembScore. */
  chexbert?: string;
  /** RaTEScore's token classifier (RaTE-NER, a DeBERTa), with its config.json naming the labels. Needs `ratescoreEncoder`. */
  ratescoreNer?: string;
  /** RaTEScore's entity encoder (BioLORD-2023-C). Needs `ratescoreNer`. */
  ratescoreEncoder?: string;
  /** Texts per forward pass (default 32). */
  batchSize?: number;
}

/**
 * The model metrics' networks run here, from local ONNX exports, with onnxruntime-node on the CPU: BERTScore's
 * token embeddings, SembScore's CheXbert [CLS] embeddings, and RaTEScore's entities (RaTE-NER, then the entity
 * encoder's [CLS] vectors). A metric is provided only when its folders are given.
 * The folders' files are checked at once; a network and its tokenizer load on the first call that needs them.
 */
export class OnnxBackend implements ModelMetricBackend {
  readonly name: string;
  readonly tokenEmbeddings?: (texts: string[]) => Promise<number[][][]>;
  readonly reportEmbeddings?: (texts: string[]) => Promise<number[][]>;
  readonly ratescoreEntities?: (texts: string[]) => Promise<RateEntity[][]>;
  private readonly loaded: Promise<OnnxTextEncoder>[] = [];

  constructor(options: OnnxBackendOptions) {
    const batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`OnnxBackend: batchSize ${batchSize} is not a positive whole number`);
    const load = (folder: ModelFolder, maxLength?: number) => {
      let encoder: Promise<OnnxTextEncoder> | undefined;
      // One load shared by concurrent calls (references and predictions are embedded at the same time).
      return (): Promise<OnnxTextEncoder> => {
        if (!encoder) this.loaded.push((encoder = OnnxTextEncoder.load(folder, maxLength)));
        return encoder;
      };
    };
    const lazy = (folder: ModelFolder) => {
      const encoder = load(folder);
      return async (texts: readonly string[]): Promise<TextStates[]> => (await encoder()).run(texts, batchSize);
    };
    const parts: string[] = [];
    if (options.bertscore !== undefined) {
      const run = lazy(checkModelFolder(options.bertscore, 'BERTScore'));
      parts.push(`bertscore ${options.bertscore}`);
      this.tokenEmbeddings = async (texts) => (await run(texts)).map(tokenVectors);
    }
    if (options.chexbert !== undefined) {
      const run = lazy(checkModelFolder(options.chexbert, 'SembScore (CheXbert)'));
      parts.push(`chexbert ${options.chexbert}`);
      // CheXbert's report embedding is the final layer's vector at [CLS], the first position.
      this.reportEmbeddings = async (texts) => (await run(texts)).map((t) => Array.from(t.states.subarray(0, t.hidden)));
    }
    if ((options.ratescoreNer === undefined) !== (options.ratescoreEncoder === undefined)) {
      throw new CxrError('bad-option', `RaTEScore needs both ONNX model folders: ${options.ratescoreNer === undefined ? '--onnx-ratescore-ner (the RaTE-NER token classifier)' : '--onnx-ratescore-encoder (the BioLORD entity encoder)'} is missing (docs/rrg.md)`);
    }
    if (options.ratescoreNer !== undefined && options.ratescoreEncoder !== undefined) {
      const nerFolder = checkModelFolder(options.ratescoreNer, 'RaTEScore NER', ['config.json']);
      const ner = load(nerFolder, RATESCORE_NER_MAX_LENGTH);
      const encoder = load(checkModelFolder(options.ratescoreEncoder, 'RaTEScore entity encoder'), RATESCORE_ENTITY_MAX_LENGTH);
      let labels: string[] | undefined;
      parts.push(`ratescore ${options.ratescoreNer} + ${options.ratescoreEncoder}`);
      this.ratescoreEntities = async (texts) => {
        labels ??= readNerLabels(nerFolder);
        return onnxRatescoreEntities(texts, { model: await ner(), labels, folder: nerFolder }, await encoder(), batchSize);
      };
    }
    if (parts.length === 0) throw new Error('OnnxBackend: give at least one model folder (bertscore, chexbert, or ratescoreNer with ratescoreEncoder)');
    this.name = `onnx (${parts.join(', ')})`;
  }

  /** Frees the networks that were loaded. */
  async close(): Promise<void> {
    const settled = await Promise.allSettled(this.loaded);
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.release() : undefined)));
  }
}

/** One vector per token of the text, the special tokens' positions left out (bert-score gives them no weight). */
function tokenVectors(t: TextStates): number[][] {
  const out: number[][] = [];
  t.special.forEach((special, i) => {
    if (!special) out.push(Array.from(t.states.subarray(i * t.hidden, (i + 1) * t.hidden)));
  });
  return out;
}
