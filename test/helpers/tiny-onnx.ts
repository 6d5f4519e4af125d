import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import protobuf from 'protobufjs';
import { OnnxBackend } from '../../src/rrg/onnx-backend.js';

/**
 * Builds, at test time, a model folder laid out as Hugging Face exports one (model.onnx, tokenizer.json,
 * tokenizer_config.json) around a network small enough to check by hand: no model is downloaded, and the ONNX
 * backend runs on it exactly as on distilroberta-base or CheXbert.
 */

/**
 * The few messages of onnx.proto (github.com/onnx/onnx, onnx/onnx.proto) this file writes, with only the fields
 * it uses. Field numbers are onnx.proto's own, so the bytes are a valid ModelProto.
 */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto { string name = 1; int64 i = 3; int32 type = 20; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; repeated float float_data = 4; repeated int64 int64_data = 7; string name = 8; }
message TensorShapeProto { message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } } repeated Dimension dim = 1; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } oneof value { Tensor tensor_type = 1; } }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message GraphProto { repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message ModelProto { int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
`;
const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType('onnx.ModelProto');
/** TensorProto.DataType and AttributeProto.AttributeType values used here. */
const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

/** The tiny vocabulary: BERT's four special tokens, then words of chest X-ray reports, and one WordPiece suffix. */
export const VOCAB = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]',
  'no', 'pleural', 'effusion', 'normal', 'heart', 'size', 'large', 'right', 'left', 'small', 'pneumothorax',
  'cardiomegaly', 'with', 'mild', 'edema', 'chest', 'lungs', 'are', 'clear', 'the', 'is', 'there', 'of', 'lung',
  'opacity', 'stable', 'acute', 'process', 'consolidation', 'bilateral', 'lower', 'lobe', 'atelectasis', 'findings',
  'impression', 'focal', 'silhouette', 'within', 'limits', '.', ',', ':', '##s',
] as const;
export const DIM = 8;

/**
 * The embedding table, one row of DIM per vocabulary entry. Every value is a multiple of 1/4 (exact in float32), so
 * what the network computes equals what a test computes from these rows, to the last bit. No two rows are parallel,
 * and the [PAD] row is not zero: a padded position that leaked into a sum would show.
 */
export const TABLE: number[][] = VOCAB.map((_, v) => Array.from({ length: DIM }, (_, d) => (((v * 7 + d * 3 + ((v * d) % 5)) % 13) - 6) / 4));

/** The row of a token of the vocabulary. */
export function row(token: (typeof VOCAB)[number]): number[] {
  return TABLE[VOCAB.indexOf(token)]!;
}

/** The "contextual" network's [CLS] vector of a text whose content tokens are `tokens`: row([CLS]) + Σ rows of [CLS] tokens [SEP] (token types 0). */
export function clsVector(tokens: readonly (typeof VOCAB)[number][]): number[] {
  const all = ['[CLS]', ...tokens, '[SEP]'] as const;
  return row('[CLS]').map((x, d) => x + all.reduce((s, t) => s + TABLE[VOCAB.indexOf(t)]![d]!, 0));
}

/** Makes ONNX backends for a test file; every one made is closed after the file's tests. */
export function closingOnnxBackends(): (options: ConstructorParameters<typeof OnnxBackend>[0]) => OnnxBackend {
  const made: OnnxBackend[] = [];
  after(() => Promise.all(made.map((b) => b.close())));
  return (options) => {
    const b = new OnnxBackend(options);
    made.push(b);
    return b;
  };
}

const valueInfo = (name: string, elemType: number, dims: (number | string)[]) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
});
const node = (opType: string, input: string[], output: string[], attribute: { name: string; i: number; type: number }[] = []) => ({ opType, input, output, name: `${opType}_${output[0]}`, attribute });

/**
 * A token classifier over VOCAB: the label names by output index (config.json's id2label) and the label of each
 * token (O when not listed). Its logits are one-hot rows, so each token's label is its listed one, whatever the context.
 */
export interface TinyClassifier {
  labels: string[];
  labelOf: Partial<Record<(typeof VOCAB)[number], string>>;
}

/**
 * The ONNX bytes of the tiny network. With `classifier`, a plain network whose table is the classifier's one-hot
 * label rows and whose one output is `logits` [batch, sequence, labels], as a token-classification export names it. `plain`: last_hidden_state = table[input_ids] · attention_mask, so a token's
 * vector is its row (a BERTScore model without context). `contextual`: every real position also gets the sum of the
 * real rows of its text and the token type id (row + Σ rows + type), so the [CLS] vector depends on the whole text
 * (a CheXbert stand-in); it takes token_type_ids as BERT does, and lists a `pooler_output` [batch, DIM] before
 * last_hidden_state, so a backend that took the first output would get the wrong tensor.
 */
export function tinyOnnxModel(kind: 'plain' | 'contextual', classifier?: TinyClassifier): Uint8Array {
  const table = classifier ? VOCAB.map((t) => classifier.labels.map((l) => (l === (classifier.labelOf[t] ?? 'O') ? 1 : 0))) : TABLE;
  const width = table[0]!.length;
  const inputs = [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])];
  const nodes = [
    node('Gather', ['table', 'input_ids'], ['rows']),
    node('Cast', ['attention_mask'], ['mask'], [{ name: 'to', i: FLOAT, type: ATTRIBUTE_INT }]),
    node('Unsqueeze', ['mask', 'last_axis'], ['mask3']),
  ];
  let outputs = [valueInfo(classifier ? 'logits' : 'last_hidden_state', FLOAT, ['batch', 'sequence', width])];
  if (kind === 'plain') nodes.push(node('Mul', ['rows', 'mask3'], [outputs[0]!.name]));
  else {
    inputs.push(valueInfo('token_type_ids', INT64, ['batch', 'sequence']));
    nodes.push(
      node('Mul', ['rows', 'mask3'], ['masked']),
      node('ReduceSum', ['masked', 'sequence_axis'], ['text_sum'], [{ name: 'keepdims', i: 1, type: ATTRIBUTE_INT }]),
      node('ReduceSum', ['masked', 'sequence_axis'], ['pooler_output'], [{ name: 'keepdims', i: 0, type: ATTRIBUTE_INT }]),
      node('Add', ['rows', 'text_sum'], ['with_text']),
      node('Cast', ['token_type_ids'], ['types'], [{ name: 'to', i: FLOAT, type: ATTRIBUTE_INT }]),
      node('Unsqueeze', ['types', 'last_axis'], ['types3']),
      node('Add', ['with_text', 'types3'], ['with_types']),
      node('Mul', ['with_types', 'mask3'], ['last_hidden_state']),
    );
    outputs = [valueInfo('pooler_output', FLOAT, ['batch', DIM]), ...outputs];
  }
  const model = {
    irVersion: 8,
    producerName: 'cxrbench test/helpers/tiny-onnx.ts',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: `tiny-${kind}`,
      node: nodes,
      input: inputs,
      output: outputs,
      initializer: [
        { name: 'table', dataType: FLOAT, dims: [VOCAB.length, width], floatData: table.flat() },
        { name: 'last_axis', dataType: INT64, dims: [1], int64Data: [-1] },
        ...(kind === 'contextual' ? [{ name: 'sequence_axis', dataType: INT64, dims: [1], int64Data: [1] }] : []),
      ],
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`tiny ONNX model: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/**
 * A BERT-style tokenizer.json (as `tokenizers` saves bert-base-uncased's): BertNormalizer (lowercase),
 * BertPreTokenizer, WordPiece over VOCAB, and a TemplateProcessing post-processor that adds [CLS] … [SEP].
 */
export function tinyTokenizerJson(): unknown {
  const special = (id: number) => ({ id, content: VOCAB[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const template = (id: '[CLS]' | '[SEP]') => ({ id, ids: [VOCAB.indexOf(id)], tokens: [id] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3].map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': template('[CLS]'), '[SEP]': template('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(VOCAB.map((t, i) => [t, i])) },
  };
}

/** The vocabulary of the RoBERTa-style tokenizer, by id (its ids index the same TABLE): byte-level BPE pieces, Ġ marking a space. */
export const ROBERTA_VOCAB = ['<s>', '<pad>', '</s>', '<unk>', 'N', 'o', 'Ġ', 'e', 'f', 'u', 's', 'i', 'n', '.', 'No', 'Ġe', 'ff', 'Ġeff', 'us', 'io', 'ion', 'Ġeffus', 'Ġeffusion'] as const;

/**
 * A RoBERTa-style tokenizer.json (as distilroberta-base's, which BERTScore runs): ByteLevel pre-tokenizer, BPE with
 * merges, and a RobertaProcessing post-processor adding <s> … </s>; <pad> is 1, not 0.
 */
export function tinyRobertaTokenizerJson(): unknown {
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3].map((id) => ({ id, content: ROBERTA_VOCAB[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', ...byteLevel },
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false },
    decoder: { type: 'ByteLevel', ...byteLevel },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false,
      vocab: Object.fromEntries(ROBERTA_VOCAB.map((t, i) => [t, i])),
      merges: ['N o', 'Ġ e', 'f f', 'Ġe ff', 'u s', 'i o', 'io n', 'Ġeff us', 'Ġeffus ion'],
    },
  };
}

/**
 * Writes a model folder under `parent` and returns its path. `omit` leaves files out (to test the error naming
 * them); `modelMaxLength` is tokenizer_config.json's limit (positions, special tokens included); `classifier` makes
 * it a token classifier with its config.json.
 */
export function writeTinyModelFolder(parent: string, name: string, options: { kind?: 'plain' | 'contextual'; tokenizer?: 'bert' | 'roberta'; omit?: string[]; modelMaxLength?: number; classifier?: TinyClassifier } = {}): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string | Uint8Array> = {
    'model.onnx': tinyOnnxModel(options.classifier ? 'plain' : (options.kind ?? 'plain'), options.classifier),
    ...(options.classifier ? { 'config.json': JSON.stringify({ architectures: ['DebertaV2ForTokenClassification'], id2label: Object.fromEntries(options.classifier.labels.map((l, i) => [String(i), l])) }, null, 2) } : {}),
    'tokenizer.json': JSON.stringify(options.tokenizer === 'roberta' ? tinyRobertaTokenizerJson() : tinyTokenizerJson(), null, 2),
    'tokenizer_config.json': JSON.stringify(options.tokenizer === 'roberta'
      ? { tokenizer_class: 'RobertaTokenizer', model_max_length: options.modelMaxLength ?? 512, bos_token: '<s>', eos_token: '</s>', cls_token: '<s>', sep_token: '</s>', pad_token: '<pad>', unk_token: '<unk>', add_prefix_space: false }
      : { tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: options.modelMaxLength ?? 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', clean_up_tokenization_spaces: true }, null, 2),
  };
  for (const [file, content] of Object.entries(files)) if (!options.omit?.includes(file)) writeFileSync(join(dir, file), content);
  return dir;
}
