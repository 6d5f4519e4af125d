import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePredictions } from './prediction-file.js';

const BOM = '\uFEFF';

test('predictions file: JSONL, ReXrank JSON and CSV read alike — with a byte-order mark and CRLF line ends too', () => {
  const jsonl = ['{"id": "q1", "prediction": "B"}', '{"id": "q2", "model_prediction": "The answer is C."}', ''].join('\n');
  const rexrank = JSON.stringify({ q1: { question: 'x', model_prediction: 'B' }, q2: { model_prediction: 'The answer is C.' } });
  const csv = 'id,prediction\nq1,B\nq2,The answer is C.\n';
  const want = [['q1', 'B'], ['q2', 'The answer is C.']];
  for (const [name, text, format] of [['jsonl', jsonl, 'jsonl'], ['json', rexrank, 'rexrank-json'], ['csv', csv, 'csv']] as const) {
    for (const variant of [text, BOM + text, BOM + text.replace(/\n/g, '\r\n')]) {
      const parsed = parsePredictions(variant, format);
      assert.deepEqual(parsed.problems, [], `${name}: ${JSON.stringify(variant.slice(0, 20))}`);
      assert.deepEqual([...parsed.predictions], want, name);
    }
  }
});

test('predictions file: every problem is listed with its place; the first of a repeated id is kept', () => {
  const parsed = parsePredictions(['{"id": "q1", "prediction": "B"}', 'not json', '{"prediction": "C"}', '{"id": "q1", "prediction": "D"}', '{"id": "q3"}', '[1]'].join('\r\n'), 'jsonl');
  assert.deepEqual(parsed.problems.map((p) => [p.code, p.where]), [['not-parseable', 'line 2'], ['no-id', 'line 3'], ['duplicate-id', 'line 4'], ['no-prediction', 'line 5'], ['not-parseable', 'line 6']]);
  assert.deepEqual([...parsed.predictions], [['q1', 'B']]);
  assert.equal(parsePredictions(`${BOM}[]`, 'rexrank-json').problems[0]!.code, 'not-parseable');
});

test('predictions file: a ReXrank JSON object that repeats an id (which JSON.parse collapses) lists each repeated id with its count', () => {
  const text = '{"q1": {"model_prediction": "B"}, "q2": {"model_prediction": "C", "q1": "nested keys do not count"}, "q1": {"model_prediction": "D"}, "q\\u0031": {"model_prediction": "A"}, "q3": {"model_prediction": "A"}, "q3": {"model_prediction": "B"}}';
  const parsed = parsePredictions(text, 'rexrank-json');
  assert.deepEqual(parsed.problems, [
    { code: 'duplicate-id', where: 'record "q1"', id: 'q1', message: 'record "q1" appears 3 times (JSON keeps only the last)' },
    { code: 'duplicate-id', where: 'record "q3"', id: 'q3', message: 'record "q3" appears 2 times (JSON keeps only the last)' },
  ]);
});
