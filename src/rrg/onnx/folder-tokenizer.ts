// Why @huggingface/tokenizers (pinned in package.json): it reads a Hugging Face tokenizer.json as is (WordPiece for
// CheXbert's BERT, byte-level BPE for distilroberta, with their normalizers, pre-tokenizers and post-processors),
// offline from an object we parse, in pure JavaScript with no dependencies (~650 kB installed). It is Hugging Face's
// own, maintained, and the tokenizer inside @huggingface/transformers — which we did not take, as it would add
// onnxruntime-web, sharp and a template engine for nothing we use. The Rust bindings (`tokenizers` on npm) would
// need a prebuilt native addon per platform for the same job.
import { Tokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';
import { CxrError } from '../../core/errors.js';
import { readFolderJson, type ModelFolder } from './model-folder.js';

/** One text as the network takes it. */
export interface EncodedText {
  ids: number[];
  /** The token type (segment) ids, for networks that take token_type_ids (BERT). */
  typeIds: number[];
  /** True at the positions the tokenizer's post-processor added ([CLS]/[SEP], <s>/</s>): BERTScore drops them. */
  special: boolean[];
}

/** A folder's tokenizer: text → ids with the special tokens the model was trained with, cut to its length limit. */
export interface FolderTokenizer {
  encode(text: string): EncodedText;
  /** The id padded positions get (the attention mask hides them; RoBERTa also counts positions from it); null when the tokenizer names no pad token. */
  padId: number | null;
  /** The text of a run of token ids, as the tokenizer's own decoder writes it (transformers' convert_tokens_to_string). */
  decode(ids: readonly number[]): string;
}

const TokenizerJson = z.looseObject({
  padding: z.looseObject({ pad_id: z.number().int().min(0) }).nullish(),
  truncation: z.looseObject({ max_length: z.number().int().positive() }).nullish(),
});
const TokenizerConfig = z.looseObject({
  model_max_length: z.number().positive().optional(),
  pad_token: z.union([z.string(), z.looseObject({ content: z.string() })]).nullish(),
});
/** transformers writes model_max_length = 1e30 ("VERY_LARGE_INTEGER") for "no limit". */
const NO_LIMIT = 1e9;
/** Stands for the text when asking the post-processor where it puts the special tokens: a private-use code point no vocabulary holds. */
const SENTINEL = '\uE000cxrbench-sequence\uE000';

/**
 * Loads the folder's tokenizer.json (and tokenizer_config.json when present); `maxLength` caps the positions of a
 * text below the folder's own limit, as a caller's `max_length` does in transformers. The special tokens are the ones the
 * tokenizer's own post-processor adds around a text — asked once by running it on a stand-in sequence — so
 * "special" means what the model's exporters meant, not a guess from token strings. Long texts are cut as
 * transformers cuts them: the text's tokens past model_max_length go, the special tokens stay.
 */
export function loadFolderTokenizer(folder: ModelFolder, maxLength?: number): FolderTokenizer {
  const json = readFolderJson(folder, 'tokenizer.json');
  const config = readFolderJson(folder, 'tokenizer_config.json', true) ?? {};
  const fail = (what: string) => new CxrError('model-config', `${folder.label} ONNX model folder ${folder.dir}: ${what}`);
  const settings = TokenizerJson.safeParse(json);
  const configSettings = TokenizerConfig.safeParse(config);
  if (!settings.success || !configSettings.success) throw fail(`${settings.success ? 'tokenizer_config.json' : 'tokenizer.json'} is not a Hugging Face tokenizer file`);
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json as object, config as object);
  } catch (error) {
    throw fail(`tokenizer.json cannot be used: ${(error as Error).message}`);
  }

  const wrapped = tokenizer.post_processor ? tokenizer.post_processor([SENTINEL], null, true) : { tokens: [SENTINEL] };
  const at = wrapped.tokens.indexOf(SENTINEL);
  if (at < 0 || wrapped.tokens.lastIndexOf(SENTINEL) !== at) throw fail("tokenizer.json's post-processor does not place a single text once");
  const idOf = (token: string) => {
    const id = tokenizer.token_to_id(token);
    if (id === undefined) throw fail(`tokenizer.json's post-processor adds "${token}", which is not in its vocabulary`);
    return id;
  };
  const prefix = wrapped.tokens.slice(0, at).map(idOf);
  const suffix = wrapped.tokens.slice(at + 1).map(idOf);
  const types = wrapped.token_type_ids ?? wrapped.tokens.map(() => 0);
  const textType = types[at] ?? 0;
  // The layout learnt from the stand-in must be what encode() itself produces, or dropping "special" positions would be wrong.
  const sample = 'a b';
  const inner = tokenizer.encode(sample, { add_special_tokens: false }).ids;
  if (tokenizer.encode(sample, { add_special_tokens: true }).ids.join() !== [...prefix, ...inner, ...suffix].join()) {
    throw fail("tokenizer.json's post-processor does more than add special tokens around the text; cxrbench cannot tell its special tokens apart");
  }

  const limits = [configSettings.data.model_max_length, settings.data.truncation?.max_length, maxLength].filter((n): n is number => n !== undefined && n < NO_LIMIT);
  const limit = limits.length > 0 ? Math.floor(Math.min(...limits)) : null;
  const room = limit === null ? Infinity : limit - prefix.length - suffix.length;
  if (room < 1) throw fail(`model_max_length ${limit} leaves no room for text beside ${prefix.length + suffix.length} special tokens`);
  const padToken = configSettings.data.pad_token;
  const padId = settings.data.padding?.pad_id ?? (padToken ? tokenizer.token_to_id(typeof padToken === 'string' ? padToken : padToken.content) ?? null : null);

  return {
    padId,
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    encode(text) {
      // bert-score and CheXbert both strip the text before tokenizing.
      const content = tokenizer.encode(text.trim(), { add_special_tokens: false }).ids.slice(0, room);
      return {
        ids: [...prefix, ...content, ...suffix],
        typeIds: [...types.slice(0, at), ...content.map(() => textType), ...types.slice(at + 1)],
        special: [...prefix.map(() => true), ...content.map(() => false), ...suffix.map(() => true)],
      };
    },
  };
}
