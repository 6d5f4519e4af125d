import { checkModelFolder, type ModelFolder } from './onnx/model-folder.js';
import { OnnxTextEncoder, type TextStates } from './onnx/text-encoder.js';
import type { ModelMetricBackend } from './scoring-service.js';

/** Where the networks are: a folder per metric, each as Hugging Face exports a model to ONNX (docs/rrg.md). */
export interface OnnxBackendOptions {
  /** Token-embedding model for BERTScore (distilroberta-base cut to 5 layers, as ReXrank runs it). */
  bertscore?: string;
  /** CheXbert's BERT encoder for SembScore. */
  chexbert?: string;
  /** Texts per forward pass (default 32). */
  batchSize?: number;
}

/**
 * The model metrics' networks run here, from local ONNX exports, with onnxruntime-node on the CPU: BERTScore's
 * token embeddings and SembScore's CheXbert [CLS] embeddings. A metric is provided only when its folder is given.
 * The folders' files are checked at once; a network and its tokenizer load on the first call that needs them.
 */
export class OnnxBackend implements ModelMetricBackend {
  readonly name: string;
  readonly tokenEmbeddings?: (texts: string[]) => Promise<number[][][]>;
  readonly reportEmbeddings?: (texts: string[]) => Promise<number[][]>;
  private readonly loaded: Promise<OnnxTextEncoder>[] = [];

  constructor(options: OnnxBackendOptions) {
    const batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`OnnxBackend: batchSize ${batchSize} is not a positive whole number`);
    const lazy = (folder: ModelFolder) => {
      let encoder: Promise<OnnxTextEncoder> | undefined;
      return (texts: readonly string[]): Promise<TextStates[]> => {
        // One load shared by concurrent calls (references and predictions are embedded at the same time).
        if (!encoder) this.loaded.push((encoder = OnnxTextEncoder.load(folder)));
        return encoder.then((e) => e.run(texts, batchSize));
      };
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
    if (parts.length === 0) throw new Error('OnnxBackend: give at least one model folder (bertscore or chexbert)');
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
