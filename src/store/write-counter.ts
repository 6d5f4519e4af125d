import { DeleteQueryNode, InsertQueryNode, MergeQueryNode, UpdateQueryNode, type KyselyPlugin, type QueryId } from 'kysely';

/** A Kysely plugin that counts this process's writes (insert, update, delete, merge) once each has returned. */
export interface WriteCounter {
  plugin: KyselyPlugin;
  writes(): number;
}

/**
 * Counts writes made through one Kysely instance, after the database answered them: on PostgreSQL a replica hears
 * other processes' commits by LISTEN, but its own writes must move its change token at once (an admin redirected
 * to the board after withdrawing an entry must not see it), without waiting for the notification to come back.
 * Raw SQL is not counted (the notification still is).
 */
export function writeCounter(): WriteCounter {
  const pending = new WeakSet<QueryId>();
  let writes = 0;
  return {
    plugin: {
      transformQuery: ({ node, queryId }) => {
        if (InsertQueryNode.is(node) || UpdateQueryNode.is(node) || DeleteQueryNode.is(node) || MergeQueryNode.is(node)) pending.add(queryId);
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        if (pending.delete(queryId)) writes++;
        return result;
      },
    },
    writes: () => writes,
  };
}
