import { test } from 'node:test';
import { checkStreamingUnderHeapCap } from './helpers/streaming-check.js';

/**
 * Streaming: `data validate` and `data stats` read a train file a quarter the size of the real one (143,105 of
 * its 572,419 records, ~150 MB) with the JavaScript heap capped at 64 MB, and count every record exactly. The
 * full-size check (572,419 records under 160 MB) is part of `./run bench` (bench/validate-stats.ts): it takes
 * minutes on the 2-core machine. The cap scales with the file over the CLI's own ~30 MB (modules and start-up):
 * 30 + (160 − 30) / 4 ≈ 62 MB.
 */
test('streaming: validate and stats read a 143,105-record (~150 MB) train file under a 64 MB heap cap, counts exact', { timeout: 240_000 }, async () => {
  await checkStreamingUnderHeapCap(143_105, 64);
});
