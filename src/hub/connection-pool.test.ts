import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionPool, type Lease } from './connection-pool.js';

/** Asks for a connection and records, in `got`, the order in which leases are handed out. */
function ask(pool: ConnectionPool, got: string[], name: string, rank: [number, number], buffer = false, signal?: AbortSignal): Promise<Lease> {
  return pool.acquire(rank, buffer, signal).then((lease) => (got.push(name), lease));
}
const settle = () => new Promise((r) => setImmediate(r));

test('connection pool: a free connection goes to the earliest file, then the earliest offset, whatever the order of asking', async () => {
  const pool = new ConnectionPool(1, 0, 0);
  const got: string[] = [];
  const first = await ask(pool, got, 'first', [5, 0]);
  const waiting = [ask(pool, got, 'file 2 @0', [2, 0]), ask(pool, got, 'file 1 @8', [1, 8]), ask(pool, got, 'file 1 @0', [1, 0]), ask(pool, got, 'file 3 @0', [3, 0])];
  await settle();
  assert.deepEqual(got, ['first'], 'one connection: the others wait');
  first.release();
  first.release(); // a second release of the same lease frees nothing more
  for (let i = 0; i < waiting.length; i++) {
    const lease = await waiting[[2, 1, 0, 3][i]!]!;
    await settle();
    assert.equal(got.length, i + 2, `exactly one more lease after release ${i + 1}`);
    lease.release();
  }
  assert.deepEqual(got, ['first', 'file 1 @0', 'file 1 @8', 'file 2 @0', 'file 3 @0']);
});

test('connection pool: at most `buffers` buffers are out at once; a waiter for one lets a later waiter needing none go first', async () => {
  const pool = new ConnectionPool(5, 2, 16);
  const got: string[] = [];
  const a = await ask(pool, got, 'a', [0, 0]);
  const b = await ask(pool, got, 'b', [0, 16], true);
  const c = await ask(pool, got, 'c', [0, 32], true);
  assert.equal(a.buffer, null);
  assert.equal(b.buffer?.length, 16);
  assert.equal(c.buffer?.length, 16);
  assert.notEqual(b.buffer, c.buffer);
  const d = ask(pool, got, 'd', [0, 48], true); // no buffer left: waits although a connection is free
  const e = ask(pool, got, 'e', [1, 0]); // later rank, needs no buffer: goes by
  await settle();
  assert.deepEqual(got, ['a', 'b', 'c', 'e']);
  pool.giveBack(b.buffer!);
  const dLease = await d;
  assert.equal(dLease.buffer, b.buffer, 'a buffer given back is handed out again, not a new one');
  (await e).release();
});

test('connection pool: a waiter whose signal aborts is dropped with its reason and does not take a connection later', async () => {
  const pool = new ConnectionPool(1, 0, 0);
  const got: string[] = [];
  const held = await ask(pool, got, 'held', [0, 0]);
  const stop = new AbortController();
  const dropped = ask(pool, got, 'dropped', [0, 1], false, stop.signal);
  const next = ask(pool, got, 'next', [1, 0]);
  stop.abort(new Error('the run stopped'));
  await assert.rejects(dropped, /the run stopped/);
  held.release();
  await next;
  assert.deepEqual(got, ['held', 'next']);
  await assert.rejects(pool.acquire([0, 0], false, stop.signal), /the run stopped/, 'an aborted signal is refused at once');
});
