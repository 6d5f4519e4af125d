import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatedTopLevelKeys } from './repeated-json-keys.js';

const repeated = (text: string) => Object.fromEntries(repeatedTopLevelKeys(text, Object.keys(JSON.parse(text) as object).length));

test('repeated JSON keys: only keys of the top-level object count, as JSON.parse decodes them', () => {
  const cases: { text: string; want: Record<string, number> }[] = [
    { text: '{}', want: {} },
    { text: '{"a": 1, "b": {"a": 2, "a": 3}, "c": ["a", "a"]}', want: {} },
    { text: '{"a": 1, "b": 2, "a": 3}', want: { a: 2 } },
    { text: '{"a": 1, "\\u0061": 2}', want: { a: 2 } },
    { text: '{"x\\"y": "\\"", "x\\"y": "{", "z\\\\": "}", "z\\\\": 1}', want: { 'x"y': 2, 'z\\': 2 } },
    { text: '{ "k" : {"k": 1} ,\n "k":[{"k":2}], "k": "k:" }', want: { k: 3 } },
  ];
  for (const c of cases) assert.deepEqual(repeated(c.text), c.want, c.text);
});
