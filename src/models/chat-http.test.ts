import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatBodySerializer } from './chat-http.js';

test('ChatBodySerializer: the text is exactly what JSON.stringify gives, for system, string and multi-part messages, cached or not', () => {
  const serializer = new ChatBodySerializer(2);
  const image = (n: number) => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${'QUJD'.repeat(50)}${n}` } });
  for (let round = 0; round < 3; round++) {
    const body = {
      model: 'm "quoted"', temperature: 0, max_tokens: 10, seed: 3,
      messages: [
        { role: 'system' as const, content: 'sys\nline' },
        { role: 'user' as const, content: [image(1), image(round), { ...image(2), image_url: { ...image(2).image_url, detail: 'low' as const } }, { type: 'text' as const, text: 'Q: "é"?' }] },
      ],
    };
    const text = serializer.serialize(body);
    assert.equal(text, JSON.stringify(body));
  }
});
