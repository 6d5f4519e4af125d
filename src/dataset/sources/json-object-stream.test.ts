import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonStructureError, ObjectMemberScanner, streamObjectMembers } from './json-object-stream.js';

/** Scans `text` cut into chunks of `size` bytes, so every boundary case (inside keys, strings, escapes) is hit. */
function scan(text: string, size: number) {
  const scanner = new ObjectMemberScanner();
  const bytes = Buffer.from(text, 'utf8');
  const members = [];
  for (let i = 0; i < bytes.length; i += size) members.push(...scanner.push(bytes.subarray(i, i + size)));
  members.push(...scanner.end());
  return members.map((m) => ({ key: m.key, value: JSON.parse(m.text.replace(/\b(NaN|None)\b/g, 'null')) as unknown, line: m.line, column: m.column, byteOffset: m.byteOffset, hasBareWords: m.hasBareWords }));
}

const tricky = '\uFEFF{\n  "a": {"q": "say \\"hi\\" \\\\", "o": ["x", "y"]},\n  "b\\"k": [1, {"n": [2]}],\n  "é": "ünïcödé \\\\\\"",\n  "n": 12.5e3,\n  "t": true,\n  "z": {"F": NaN}\n}\n';

const expected = [
  { key: 'a', value: { q: 'say "hi" \\', o: ['x', 'y'] }, line: 2, column: 8, hasBareWords: false },
  { key: 'b"k', value: [1, { n: [2] }], line: 3, column: 11, hasBareWords: false },
  { key: 'é', value: 'ünïcödé \\"', line: 4, column: 9, hasBareWords: false },
  { key: 'n', value: 12500, line: 5, column: 8, hasBareWords: false },
  { key: 't', value: true, line: 6, column: 8, hasBareWords: false },
  { key: 'z', value: { F: null }, line: 7, column: 8, hasBareWords: true },
];

for (const size of [1, 2, 3, 5, 7, 16, 1 << 20]) {
  test(`scanner: members, values and positions are the same with ${size}-byte chunks`, () => {
    assert.deepEqual(scan(tricky, size).map(({ byteOffset: _b, ...rest }) => rest), expected);
  });
}

test('scanner: byte offsets point at the first byte of each value', () => {
  const text = '{"a": {"x": 1}, "bb": [2]}';
  const got = scan(text, 4);
  assert.deepEqual(got.map((m) => text.slice(m.byteOffset, m.byteOffset + 1)), ['{', '[']);
});

test('scanner: bare NaN / None outside strings is flagged, inside strings it is not', () => {
  assert.deepEqual(scan('{"a": {"x": "NaN None"}, "b": {"x": NaN}, "c": {"x": None}}', 3).map((m) => m.hasBareWords), [false, true, true]);
});

test('scanner: repeated keys are all yielded, in order', () => {
  assert.deepEqual(scan('{"k": 1, "k": 2, "j": 3}', 2).map((m) => [m.key, m.value]), [['k', 1], ['k', 2], ['j', 3]]);
});

test('scanner: an empty object has no members', () => {
  assert.deepEqual(scan(' {\n}\n', 1), []);
});

const broken: { name: string; text: string; reason: RegExp; line: number; column: number }[] = [
  { name: 'a list instead of an object', text: '[{"a": 1}]', reason: /expected the file to be one JSON object/, line: 1, column: 1 },
  { name: 'a missing colon', text: '{\n  "a" 1}', reason: /expected ':' after key "a"/, line: 2, column: 7 },
  { name: 'a missing comma', text: '{\n "a": {}\n "b": {}}', reason: /expected ',' or '}' after the value of key "a"/, line: 3, column: 2 },
  { name: 'a trailing comma', text: '{"a": 1,\n}', reason: /expected a question key/, line: 2, column: 1 },
  { name: 'a non-string key', text: '{a: 1}', reason: /expected a question key/, line: 1, column: 2 },
  { name: 'a missing value', text: '{"a": , "b": 2}', reason: /expected a value for key "a"/, line: 1, column: 7 },
  { name: 'text after the object', text: '{"a": 1}\n{"b": 2}', reason: /after the end of the top-level object/, line: 2, column: 1 },
  { name: 'a truncated file', text: '{"a": {"q": "unterminated', reason: /unexpected end of file: an unterminated string \(last key "a"\)/, line: 1, column: 26 },
  { name: 'a missing closing brace', text: '{"a": {}', reason: /unexpected end of file: a missing closing '}'/, line: 1, column: 9 },
  { name: 'an empty file', text: '  \n', reason: /the file is empty/, line: 2, column: 1 },
];

for (const c of broken) {
  test(`scanner: ${c.name} is an error at line ${c.line}, column ${c.column}`, () => {
    for (const size of [1, 4, 1000]) {
      assert.throws(
        () => scan(c.text, size),
        (e: unknown) => e instanceof JsonStructureError && c.reason.test(e.reason) && e.line === c.line && e.column === c.column,
        `chunk size ${size}`,
      );
    }
  });
}

test('streamObjectMembers: reads from an async iterable of strings and buffers', async () => {
  async function* chunks() {
    yield '{"a": ';
    yield Buffer.from('{"x": "\\u00e9"}, "b"');
    yield new Uint8Array(Buffer.from(': 2}'));
  }
  const keys = [];
  for await (const m of streamObjectMembers(chunks())) keys.push([m.key, JSON.parse(m.text)]);
  assert.deepEqual(keys, [['a', { x: 'é' }], ['b', 2]]);
});

test('scanner: members completed before a structure error in the same chunk are still returned', () => {
  const scanner = new ObjectMemberScanner();
  const members = scanner.push(Buffer.from('{"a": 1, "b": 2 "c": 3}'));
  assert.deepEqual(members.map((m) => m.key), ['a', 'b']);
  assert.throws(() => scanner.end(), (e: unknown) => e instanceof JsonStructureError && e.column === 17);
});
