import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { demoBoard, lazyCluster, predictionsJsonl, signUp, tokenFor, uploadForm } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A log sink: every line the server writes. */
function logSink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return { stream: new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c.toString()), cb()) }), text: () => chunks.join('') };
}

const MODEL = JSON.stringify({ name: 'M', openWeights: true });

test('malformed uploads get a 400/413 that says what was wrong — never a 500 — and nothing is stored', async () => {
  const log = logSink();
  const board = await demoBoard('sqlite', cluster.get, { log: { level: 'info', stream: log.stream } });
  try {
    const token = await tokenFor(board.app, await signUp(board.app, 'up@lab.org', 'Team Up'));
    const auth = { authorization: `Bearer ${token}` };
    const url = '/api/benchmarks/demo/submissions';
    const good = predictionsJsonl(board.questions, (q) => q.answer);
    const cases: { name: string; headers: Record<string, string>; payload: string | Buffer; status: number; message: RegExp }[] = [
      { name: 'multipart without a boundary', headers: { 'content-type': 'multipart/form-data' }, payload: '--x\r\n\r\n', status: 400, message: /multipart body is malformed|boundary/i },
      { name: 'a boundary that never occurs', headers: { 'content-type': 'multipart/form-data; boundary=nope' }, payload: `--other\r\nContent-Disposition: form-data; name="file"; filename="p.jsonl"\r\n\r\n${good}\r\n--other--\r\n`, status: 400, message: /choose|send the predictions as the multipart field "file"|malformed/ },
      { name: 'a body cut short', headers: { 'content-type': 'multipart/form-data; boundary=b' }, payload: `--b\r\nContent-Disposition: form-data; name="file"; filename="p.jsonl"\r\n\r\n${good.slice(0, 200)}`, status: 400, message: /malformed/ },
      { name: 'a large body that is not multipart', headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(3 * 1024 * 1024, 0x20), status: 413, message: /larger than 1 MB .*multipart\/form-data, up to 100 MB/ },
      { name: 'an octet stream', headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from(good), status: 415, message: /application\/octet-stream is not accepted/ },
    ];
    for (const c of cases) {
      const res = await board.app.inject({ method: 'POST', url, headers: { ...auth, ...c.headers }, payload: c.payload });
      assert.equal(res.statusCode, c.status, `${c.name}: ${res.body}`);
      assert.match((res.json() as { message: string }).message, c.message, c.name);
    }
    // two (empty) file parts
    const two = new FormData();
    two.append('model', MODEL);
    two.append('file', new Blob(['']), 'a.jsonl');
    two.append('file', new Blob(['']), 'b.jsonl');
    const twoRes = await board.app.inject({ method: 'POST', url, headers: auth, payload: two });
    assert.equal(twoRes.statusCode, 400, twoRes.body);
    assert.match(twoRes.body, /send one file only/);
    // a model field far larger than a model card: refused with the real limit, not "must be JSON"
    const bigModel = JSON.stringify({ name: 'M', openWeights: true, notes: 'x'.repeat(2 * 1024 * 1024) });
    const bigRes = await board.app.inject({ method: 'POST', url, headers: auth, payload: uploadForm({ name: 'p.jsonl', content: good }, { model: bigModel }) });
    assert.equal(bigRes.statusCode, 413, bigRes.body);
    assert.match(bigRes.body, /the field \\"model\\" is larger than 64 KB/);
    assert.equal((await board.store.db.selectFrom('submissions').selectAll().execute()).length, 0, 'nothing stored');
    // A JSONL file with a byte-order mark and CRLF line ends (saved on Windows) is accepted.
    const windows = `\uFEFF${good.replace(/\n/g, '\r\n')}`;
    const ok = await board.app.inject({ method: 'POST', url, headers: auth, payload: uploadForm({ name: 'p.jsonl', content: windows }, { model: MODEL }) });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.equal((await board.settled((ok.json() as { submission: string }).submission)).state, 'scored');
    // The log: one JSON line per request with its id; the refusals are there; no token, no file content.
    const lines = log.text().trim().split('\n').map((l) => JSON.parse(l) as { reqId?: string; msg: string; level: number });
    assert.ok(lines.some((l) => l.reqId && /malformed/.test(l.msg)), 'a refused upload is logged with its request id');
    assert.ok(!log.text().includes(token), 'the token never reaches the log');
    assert.ok(!log.text().includes(board.questions[0]!.id), 'upload content never reaches the log');
  } finally {
    await board.close();
  }
});

test('an internal error is a 500 that names the request id, and is logged with it', async () => {
  const log = logSink();
  const board = await demoBoard('sqlite', cluster.get, { log: { level: 'info', stream: log.stream } });
  try {
    await board.store.db.schema.dropTable('entries').execute(); // the database breaks under the server
    const res = await board.app.inject({ url: '/api/benchmarks/demo/leaderboard' });
    assert.equal(res.statusCode, 500);
    const id = res.headers['x-request-id'] as string;
    assert.ok(id, 'every response carries its request id');
    assert.match(res.body, new RegExp(`internal error \\(request ${id}\\)`));
    const logged = log.text().trim().split('\n').map((l) => JSON.parse(l) as { reqId?: string; msg: string; err?: { message: string } });
    assert.ok(logged.some((l) => l.reqId === id && l.msg === 'request failed' && /entries/.test(l.err?.message ?? '')), 'the 500 is logged with its cause and request id');
  } finally {
    await board.close();
  }
});
