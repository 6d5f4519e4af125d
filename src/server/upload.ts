import type { FastifyRequest } from 'fastify';
import { nulMessage } from './request-guard.js';

export interface Upload {
  fields: Record<string, string>;
  file: { name: string; content: string } | null;
}

/** The largest text field of an upload form (a model card is a few hundred bytes). */
export const MAX_FIELD_BYTES = 64 * 1024;

/** An upload refused before anything was stored, with the HTTP status and what to fix. */
export class UploadError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** A size as people set it: `--max-upload-mb 100` is 100 MB here too (1 MB = 1,048,576 bytes). */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * Reads a multipart upload (one file, small text fields). Limits are enforced while streaming: a larger file is
 * cut off and refused, never buffered whole. Every way a body can be wrong — not multipart, no or a bad
 * boundary, cut short, a second file, an oversized field — is an {@link UploadError} saying which.
 */
export async function readUpload(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new UploadError(400, `expected a multipart/form-data upload (the predictions as the field "file", the model card as the field "model"), got ${request.headers['content-type'] ?? 'no content type'}`);
  }
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let file: Upload['file'] = null;
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 30, fieldSize: MAX_FIELD_BYTES } })) {
      if (part.type === 'file') {
        if (part.filename.includes('\u0000')) throw new UploadError(400, nulMessage('the file name', 'nothing was stored'));
        const bytes = await part.toBuffer();
        file = { name: part.filename || 'predictions', content: bytes.toString('utf8') };
      } else {
        if (part.valueTruncated) throw new UploadError(413, `the field "${part.fieldname}" is larger than ${formatBytes(MAX_FIELD_BYTES)}; nothing was stored`);
        // As for every other form (request-guard.ts): one value per field, and no NUL byte in any.
        if (Object.hasOwn(fields, part.fieldname)) throw new UploadError(400, `the field "${part.fieldname}" was sent twice; send it once; nothing was stored`);
        if (typeof part.value === 'string' && part.value.includes('\u0000')) throw new UploadError(400, nulMessage(`the field "${part.fieldname}"`, 'nothing was stored'));
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    if (error instanceof UploadError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new UploadError(413, `the file is larger than the upload limit of ${formatBytes(maxBytes)}; nothing was stored`);
    if (code === 'FST_FILES_LIMIT') throw new UploadError(400, 'send one file only, as the field "file"; nothing was stored');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw new UploadError(400, 'the form has too many fields; send "file" and "model" only');
    // busboy's own complaints: no boundary, a bad one, a body cut short, a malformed part header
    throw new UploadError(400, `the multipart body is malformed (${(error as Error).message}); send it as multipart/form-data, as curl -F or a browser form does`);
  }
  return { fields, file };
}
