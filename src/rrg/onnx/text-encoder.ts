import { join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { CxrError } from '../../core/errors.js';
import { loadFolderTokenizer, type EncodedText, type FolderTokenizer } from './folder-tokenizer.js';
import type { ModelFolder } from './model-folder.js';

/** One text through the network: its tokens and the output at each, row-major [tokens × hidden] (hidden states, or a classifier's logits). */
export interface TextStates {
  ids: number[];
  special: boolean[];
  hidden: number;
  states: Float32Array;
}

/** The inputs cxrbench knows how to fill; an exported BERT or RoBERTa asks for a subset of these. */
const KNOWN_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'] as const;

/**
 * A transformer encoder exported to ONNX, run with onnxruntime-node on the CPU: tokenizes texts, runs them in
 * padded batches and returns each text's last hidden state without its padding.
 */
export class OnnxTextEncoder {
  private constructor(
    private readonly folder: ModelFolder,
    private readonly tokenizer: FolderTokenizer,
    private readonly session: InferenceSession,
    private readonly makeTensor: (data: BigInt64Array, dims: number[]) => Tensor,
    private readonly outputName: string,
  ) {}

  /** Loads the tokenizer (texts cut at `maxLength` positions when given) and the network of a checked folder. onnxruntime-node is imported here, so commands that never run a model never load its native library. */
  static async load(folder: ModelFolder, maxLength?: number): Promise<OnnxTextEncoder> {
    const tokenizer = loadFolderTokenizer(folder, maxLength);
    const path = join(folder.dir, 'model.onnx');
    const fail = (what: string) => new CxrError('model-config', `${folder.label} ONNX model ${path}: ${what}`);
    let ort: typeof import('onnxruntime-node');
    try {
      ort = await import('onnxruntime-node');
    } catch (error) {
      // An optional dependency: npm drops it when its install step (a GPU library download on Linux x64) fails.
      throw fail(`onnxruntime-node is not installed or cannot load (${(error as Error).message}); install it with ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0`);
    }
    let session: InferenceSession;
    try {
      // Loading from the path (not bytes) lets a large export keep its weights in model.onnx_data beside it.
      // Log level 3 (errors): onnxruntime's warnings are about the export, not the scoring, and would clutter the output.
      session = await ort.InferenceSession.create(path, { executionProviders: ['cpu'], logSeverityLevel: 3 });
    } catch (error) {
      throw fail(`onnxruntime cannot load it (${(error as Error).message})`);
    }
    const unknown = session.inputNames.filter((n) => !(KNOWN_INPUTS as readonly string[]).includes(n));
    if (!session.inputNames.includes('input_ids') || unknown.length > 0) {
      throw fail(`its inputs are ${session.inputNames.join(', ')}; cxrbench gives input_ids, attention_mask and token_type_ids (export the encoder with those inputs)`);
    }
    // Exports of Hugging Face models name the output last_hidden_state (an encoder) or logits (a token classifier);
    // another name is taken as the first output.
    const outputName = ['last_hidden_state', 'logits'].find((n) => session.outputNames.includes(n)) ?? session.outputNames[0];
    if (outputName === undefined) throw fail('it has no outputs');
    return new OnnxTextEncoder(folder, tokenizer, session, (data, dims) => new ort.Tensor('int64', data, dims), outputName);
  }

  /**
   * Runs every text and returns their states in order. Equal texts run once; texts are batched by length (longest
   * first, as bert-score does) so a batch pads little. Without a pad token each text runs alone, unpadded.
   */
  async run(texts: readonly string[], batchSize: number): Promise<TextStates[]> {
    const unique = [...new Set(texts)];
    const encoded = unique.map((t) => this.tokenizer.encode(t));
    const order = unique.map((_, i) => i).sort((a, b) => encoded[b]!.ids.length - encoded[a]!.ids.length);
    const size = this.tokenizer.padId === null ? 1 : batchSize;
    const out = new Map<string, TextStates>();
    for (let start = 0; start < order.length; start += size) {
      const batch = order.slice(start, start + size);
      const states = await this.runBatch(batch.map((i) => encoded[i]!));
      batch.forEach((i, k) => out.set(unique[i]!, states[k]!));
    }
    return texts.map((t) => out.get(t)!);
  }

  private async runBatch(batch: EncodedText[]): Promise<TextStates[]> {
    const width = Math.max(...batch.map((e) => e.ids.length));
    const fill = (pick: (e: EncodedText) => number[], pad: number) => {
      const data = new BigInt64Array(batch.length * width).fill(BigInt(pad));
      batch.forEach((e, b) => pick(e).forEach((v, t) => (data[b * width + t] = BigInt(v))));
      return this.makeTensor(data, [batch.length, width]);
    };
    const inputs: Record<(typeof KNOWN_INPUTS)[number], () => Tensor> = {
      input_ids: () => fill((e) => e.ids, this.tokenizer.padId ?? 0),
      attention_mask: () => fill((e) => e.ids.map(() => 1), 0),
      token_type_ids: () => fill((e) => e.typeIds, 0),
    };
    const feeds = Object.fromEntries(this.session.inputNames.map((n) => [n, inputs[n as (typeof KNOWN_INPUTS)[number]]()]));
    const where = `${this.folder.label} ONNX model ${join(this.folder.dir, 'model.onnx')}`;
    let result: InferenceSession.OnnxValueMapType;
    try {
      result = await this.session.run(feeds, [this.outputName]);
    } catch (error) {
      throw new CxrError('model-config', `${where}: running it failed (${(error as Error).message})`);
    }
    const output = result[this.outputName] as Tensor;
    const [b, s, hidden] = output.dims;
    if (output.type !== 'float32' || output.dims.length !== 3 || b !== batch.length || s !== width || !hidden) {
      throw new CxrError('model-config', `${where}: output ${this.outputName} is ${output.type} [${output.dims.join(', ')}], expected float32 [batch ${batch.length}, tokens ${width}, hidden]`);
    }
    const data = output.data as Float32Array;
    // Copies (not views) so each text's states outlive the batch's output buffer.
    return batch.map((e, k) => ({ ids: e.ids, special: e.special, hidden, states: data.slice(k * width * hidden, (k * width + e.ids.length) * hidden) }));
  }

  /** The text of a run of this model's token ids. */
  decode(ids: readonly number[]): string {
    return this.tokenizer.decode(ids);
  }

  /** Frees the native session. */
  release(): Promise<void> {
    return this.session.release();
  }
}
