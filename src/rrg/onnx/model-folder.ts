import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CxrError } from '../../core/errors.js';
import { cappedFileProblem, readCappedTextFile, type CappedFile } from '../read-capped-file.js';

/** The files a model folder must hold: the network and its tokenizer, as Hugging Face exports them. */
export const REQUIRED_FILES = ['model.onnx', 'tokenizer.json'] as const;
/** Read when present: the tokenizer's settings (model_max_length, pad_token, …). Hugging Face writes it beside tokenizer.json. */
export const OPTIONAL_FILES = ['tokenizer_config.json'] as const;

/**
 * The largest model file, model.onnx and its model.onnx_data alike: 2 GiB is what one ONNX file can hold (a protobuf
 * message); the networks used here are 0.3–0.5 GB.
 */
export const MAX_MODEL_BYTES = 2 * 1024 * 1024 * 1024;
/** The largest tokenizer or settings JSON read: Hugging Face's largest tokenizer.json files are some 35 MB; BERT's is 0.7 MB. */
export const MAX_MODEL_JSON_BYTES = 64 * 1024 * 1024;

/** How a file of a model folder is named and limited in messages. */
function folderFile(folder: { dir: string; label: string }, file: string): CappedFile {
  const model = file.startsWith('model.onnx');
  return { label: `${folder.label} ONNX model folder:`, maxBytes: model ? MAX_MODEL_BYTES : MAX_MODEL_JSON_BYTES, what: model ? 'an ONNX model' : 'a model\'s JSON file', code: 'model-config' };
}

/** Where a Hugging Face export keeps the weights beside model.onnx when it writes them apart (read by onnxruntime). */
const EXTERNAL_WEIGHTS = 'model.onnx_data';

/** A model folder whose files are there; `label` says which metric it serves, for messages. */
export interface ModelFolder {
  dir: string;
  label: string;
}

/**
 * Checks that `dir` is a folder holding every required file (and `alsoRequired`, e.g. a classifier's config.json), and says which are missing (all of them at once,
 * naming the folder) — cheap, so done when the backend is made, before any scoring; the model itself loads later.
 */
export function checkModelFolder(dir: string, label: string, alsoRequired: readonly string[] = []): ModelFolder {
  let isFolder = false;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    throw new CxrError('model-config', `${label} ONNX model folder ${dir}: no such folder`);
  }
  if (!isFolder) throw new CxrError('model-config', `${label} ONNX model folder ${dir}: not a folder`);
  const required = [...REQUIRED_FILES, ...alsoRequired];
  const missing = required.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) {
    throw new CxrError('model-config', `${label} ONNX model folder ${dir} is missing ${missing.join(' and ')}: it needs ${required.join(' and ')} (and ${OPTIONAL_FILES.join(', ')}) as Hugging Face exports them (docs/rrg.md)`);
  }
  // Each a regular file within its limit, checked now rather than when the model loads after the text metrics.
  for (const file of [...required, ...[...OPTIONAL_FILES, EXTERNAL_WEIGHTS].filter((f) => existsSync(join(dir, f)))]) {
    const problem = cappedFileProblem(join(dir, file), statSync(join(dir, file)), folderFile({ dir, label }, file));
    if (problem) throw new CxrError('model-config', problem);
  }
  return { dir, label };
}

/** Reads a JSON file of the folder; undefined when an optional file is absent. Unparseable JSON names the file. */
export function readFolderJson(folder: ModelFolder, file: string, optional = false): unknown {
  const path = join(folder.dir, file);
  if (optional && !existsSync(path)) return undefined;
  const text = readCappedTextFile(path, folderFile(folder, file));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CxrError('model-config', `${folder.label} ONNX model folder: ${path} is not readable JSON (${(error as Error).message})`);
  }
}
