import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Store } from './connect.js';
import type { Database } from './schema.js';

/** The content type of an image file by its name (what the board can show). */
export function imageContentType(path: string): string | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.png')) return 'image/png';
  if (lower.endsWith('.jpg') || lower.endsWith('.jpeg')) return 'image/jpeg';
  return null;
}

/** Stores an image once by its sha256 (a second study of the same file reuses it); returns the sha256. */
export async function storeImage(db: Kysely<Database> | Transaction<Database>, content: Buffer, contentType: string): Promise<string> {
  const sha256 = createHash('sha256').update(content).digest('hex');
  await db.insertInto('stored_images')
    .values({ sha256, content_type: contentType, byte_size: content.length, content_base64: content.toString('base64'), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .execute();
  return sha256;
}

/** A stored image's bytes and type, or null. */
export async function storedImage(store: Store, sha256: string): Promise<{ content: Buffer; contentType: string } | null> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
  const row = await store.db.selectFrom('stored_images').select(['content_base64', 'content_type']).where('sha256', '=', sha256).executeTakeFirst();
  return row ? { content: Buffer.from(row.content_base64, 'base64'), contentType: row.content_type } : null;
}
