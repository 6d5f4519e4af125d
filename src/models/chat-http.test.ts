import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatBodySerializer, encodeImagePart, isCanonicalBase64 } from './chat-http.js';

test('ChatBodySerializer: the bytes are exactly JSON.stringify in UTF-8, for system, string and multi-part messages, cached, evicted or not', () => {
  const serializer = new ChatBodySerializer(500); // room for two image parts: the third evicts
  const image = (n: number) => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${'QUJD'.repeat(50)}${n}` } });
  for (let round = 0; round < 3; round++) {
    const body = {
      model: 'm "quoted"', temperature: 0, max_tokens: 10, seed: 3,
      messages: [
        { role: 'system' as const, content: 'sys\nline' },
        { role: 'user' as const, content: [image(1), image(round), { ...image(2), image_url: { ...image(2).image_url, detail: 'low' as const } }, { type: 'text' as const, text: 'Q: "é"?' }] },
      ],
    };
    const text = Buffer.concat(serializer.serialize(body)).toString('utf8');
    assert.equal(text, JSON.stringify(body));
  }
});

test('ChatBodySerializer: an image sent by several requests is encoded once and its bytes are shared', () => {
  const serializer = new ChatBodySerializer();
  const url = `data:image/png;base64,${'QUJD'.repeat(1000)}`;
  const body = (q: string) => ({ model: 'm', messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url } }, { type: 'text' as const, text: q }] }] });
  const first = serializer.serialize(body('one'));
  const second = serializer.serialize(body('two'));
  const imageChunk = first.find((c) => c.length > 4000)!;
  assert.ok(imageChunk, 'the image part is its own chunk');
  assert.ok(second.includes(imageChunk), 'the second request reuses the same Buffer');
  assert.equal(Buffer.concat(second).toString(), JSON.stringify(body('two')));
  const empty = serializer.serialize({ model: 'm', messages: [] } as never);
  assert.equal(Buffer.concat(empty).toString(), '{"model":"m","messages":[]}');
});

test('encodeImagePart: exactly JSON.stringify for base64 data URLs (fast path) and for everything else', () => {
  const payload = Buffer.from('any bytes \u0000 "quoted" é').toString('base64');
  const urls = [
    `data:image/png;base64,${payload}`,
    `data:image/png;base64,${payload.replace(/=+$/, '')}`, // not canonical: slow path
    'data:image/png;base64,QU"J\\D', // quote and backslash inside: must be escaped
    'data:image/svg+xml;utf8,<svg a="1"/>', // not base64
    'data:weird\u0001;base64,QUJD', // control character in the head
    'https://example.org/x.png?a="b"',
    'data:image/png;base64,',
  ];
  for (const url of urls) {
    for (const part of [{ type: 'image_url' as const, image_url: { url } }, { type: 'image_url' as const, image_url: { detail: 'low' as const, url } }]) {
      assert.equal(encodeImagePart(part).toString('utf8'), JSON.stringify(part), url);
    }
  }
});

test('isCanonicalBase64: padded standard base64 only', () => {
  for (const bytes of [0, 1, 2, 3, 4, 5, 100]) assert.equal(isCanonicalBase64(Buffer.alloc(bytes, 0xfb).toString('base64')), true, `${bytes} bytes`);
  for (const bad of ['QUJD"QUJ', 'QUJD\\QUJ', 'QUJD QUJ', 'QUJ\nQUJD', 'QU=DQUJD', 'QUJDQUJ', 'QUJDé===', 'QUJDéUJD', '\u20acUJDQUJD', 'QUJD\u0001UJD', 'QUJDQUJ\u00ff']) assert.equal(isCanonicalBase64(bad), false, JSON.stringify(bad));
});
