import assert from 'node:assert/strict';
import test from 'node:test';
import { GC_FLAGS, gcFlagsFor, STREAMING_GC_FLAGS } from '../bin/gc-flags.js';

// bin/cxrbench.js re-executes itself with these flags; which command gets which is decided here.
test('gc flags: eval and generate hold much data (twice-live heap growth), data download streams (1 MB young generation), others keep V8 defaults', () => {
  assert.deepEqual(gcFlagsFor(['eval', '--data', 'x']), GC_FLAGS);
  assert.deepEqual(gcFlagsFor(['generate']), GC_FLAGS);
  assert.deepEqual(gcFlagsFor(['data', 'download', '--out', 'x']), STREAMING_GC_FLAGS);
  assert.deepEqual(STREAMING_GC_FLAGS, ['--max-semi-space-size=1']);
  for (const args of [['data', 'validate', 'x'], ['data'], ['download'], ['serve'], []]) assert.deepEqual(gcFlagsFor(args), [], args.join(' '));
});
