import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Records an admin action (who, what, details); written in the same transaction as the action when given one. */
export async function audit(db: Kysely<Database> | Transaction<Database>, actor: string, action: string, detail: Record<string, unknown>): Promise<void> {
  await db.insertInto('audit_log').values({ id: randomUUID(), at: new Date().toISOString(), actor, action, detail_json: JSON.stringify(detail) }).execute();
}

export async function auditLog(db: Kysely<Database>, limit = 200) {
  return db.selectFrom('audit_log').selectAll().orderBy('at', 'desc').limit(limit).execute();
}
