import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CxrError } from '../../core/errors.js';

/** The files a model folder must hold: the network and its tokenizer, as Hugging Face exports them. */
export const REQUIRED_FILES = ['model.onnx', 'tokenizer.json'] as const;
/** Read when present: the tokenizer's settings (model_max_length, pad_token, …). Hugging Face writes it beside tokenizer.json. */
export const OPTIONAL_FILES = ['tokenizer_config.json'] as const;

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
  return { dir, label };
}

/** Reads a JSON file of the folder; undefined when an optional file is absent. Unparseable JSON names the file. */
export function readFolderJson(folder: ModelFolder, file: string, optional = false): unknown {
  const path = join(folder.dir, file);
  if (optional && !existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new CxrError('model-config', `${folder.label} ONNX model folder: ${path} is not readable JSON (${(error as Error).message})`);
  }
}
