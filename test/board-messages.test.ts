import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { describeBinary } from '../src/core/binary-signature.js';
import { createToken, createUser, revokeToken } from '../src/store/accounts.js';
import { demoBoard, lazyCluster, predictionsJsonl, uploadForm } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

test('binary files are named by their first bytes; text (JSON, CSV, other scripts) is not mistaken for one', () => {
  const asText = (b: Buffer) => b.toString('utf8');
  assert.equal(describeBinary(asText(PNG)), 'a PNG image');
  assert.equal(describeBinary('%PDF-1.7\n…'), 'a PDF document');
  assert.match(describeBinary(asText(Buffer.from([0x50, 0x4b, 3, 4, 20, 0, 6, 0]))) ?? '', /ZIP archive .*Excel/);
  assert.equal(describeBinary(asText(Buffer.from([0x1f, 0x8b, 8, 0]))), 'a gzip-compressed file');
  assert.equal(describeBinary(asText(Buffer.concat([Buffer.alloc(128), Buffer.from('DICM')]))), 'a DICOM file');
  for (const text of ['{"id": "q1", "prediction": "B"}', 'id,prediction\nq1,"答案是 B"\n', '{"q1": {"model_prediction": "Ответ: C"}}', '']) assert.equal(describeBinary(text), null, text);
});

test('board messages: an unknown page is an HTML page, an unknown API route JSON; unknown and revoked tokens are told apart; a PNG upload is named; long ids are cut', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const page = await board.app.inject({ method: 'GET', url: '/no/such/page' });
    assert.equal(page.statusCode, 404);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /<h1>Not found<\/h1>[\s\S]*There is no page at \/no\/such\/page/);
    const long = await board.app.inject({ method: 'GET', url: `/${'x'.repeat(5000)}` });
    assert.ok(long.body.length < 5000, 'a long unknown path is not echoed whole');
    assert.match(long.body, /4921 more characters/);
    const api = await board.app.inject({ method: 'GET', url: '/api/nothing' });
    assert.equal(api.statusCode, 404);
    assert.equal(api.json().error, 'not-found');

    const user = await createUser(board.store, { email: 'm@lab.org', password: 'long password here', displayName: 'm', teamName: 'M' });
    const { token, id } = await createToken(board.store, user.id, 'ci');
    const form = (content: Buffer | string, name = 'p.jsonl') => uploadForm({ name, content }, { model: JSON.stringify({ name: 'M' }) });
    const submit = (auth: string, content: Buffer | string, name?: string) => board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: { authorization: `Bearer ${auth}` }, payload: form(content, name) });
    const missing = await board.app.inject({ method: 'GET', url: '/api/submissions' });
    const unknown = await submit('cxr_not_a_real_token', 'x');
    await revokeToken(board.store, user.id, id);
    const revoked = await submit(token, 'x');
    assert.deepEqual([missing.statusCode, unknown.statusCode, revoked.statusCode], [401, 401, 401]);
    assert.match(missing.json().message, /send an API token/);
    assert.match(unknown.json().message, /not known here/);
    assert.match(revoked.json().message, /was revoked \(\d{4}-\d{2}-\d{2}\)/);

    const { token: fresh } = await createToken(board.store, user.id, 'ci2');
    const png = await submit(fresh, PNG, 'scan.png');
    assert.equal(png.statusCode, 400);
    assert.match(png.body, /this looks like a PNG image; expected ReXrank JSON, JSONL or CSV/);
    assert.doesNotMatch(png.body, /Unexpected token/);

    // The same file twice: refused, named, and no submission spent; a different file still goes in.
    const file = predictionsJsonl(board.questions, (q) => q.answer);
    const firstTime = await submit(fresh, file);
    assert.equal(firstTime.statusCode, 202);
    const again = await submit(fresh, file);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error, 'duplicate');
    assert.match(again.json().message, new RegExp(`sent this exact file on .* \\(as "M", submission ${firstTime.json().submission}, (queued|scoring|scored)\\); it was not stored again`));
    const count = await board.store.db.selectFrom('submissions').select((eb) => eb.fn.countAll<number>().as('n')).where('team_id', '=', user.team_id).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1, 'the refused copy was not stored');
    const other = await submit(fresh, predictionsJsonl(board.questions, () => 'A'));
    assert.equal(other.statusCode, 202, 'a different file is accepted');

    const hugeId = 'q'.repeat(200_000);
    const withHugeId = `${predictionsJsonl(board.questions, (q) => q.answer)}\n${JSON.stringify({ id: hugeId, prediction: 'A' })}`;
    const refused = await submit(fresh, withHugeId);
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.body.length < 2000, `the refusal is ${refused.body.length} bytes`);
    assert.match(refused.body, /199940 more characters/);
  } finally {
    await board.close();
  }
});
