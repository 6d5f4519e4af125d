import type { FastifyRequest } from 'fastify';

export interface Upload {
  fields: Record<string, string>;
  file: { name: string; content: string } | null;
}

export class UploadTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than the upload limit of ${(maxBytes / 1e6).toFixed(0)} MB`);
  }
}

/**
 * Reads a multipart upload (one file, small text fields). The size limit is enforced while streaming: a larger
 * file is cut off and refused, never buffered whole.
 */
export async function readUpload(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  const fields: Record<string, string> = {};
  let file: Upload['file'] = null;
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 30, fieldSize: 64 * 1024 } })) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        file = { name: part.filename || 'predictions', content: bytes.toString('utf8') };
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new UploadTooLarge(maxBytes);
    throw error;
  }
  return { fields, file };
}
