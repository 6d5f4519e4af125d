// Garbage-collector settings for the commands that hold much data or stream much through. V8's defaults let the
// heap grow to several times its live size on a machine with much free memory: a 41K-question evaluation holds
// ~50 MB but peaked at 440 MB, and generate's diversity filter on 600K questions peaked at 1.2 GB. Letting the heap
// grow to twice the live set (not a fixed cap, so no run is too big) brings them to ~240 MB and ~870 MB at the same
// speed or better (bench/RESULTS.md; 30% growth gave ~190 MB but cost 20% more time on large images).
// `data download` is the other way round: it holds almost nothing, but every network read, part chunk and
// decompressed block is a short-lived buffer. With V8's 16 MB young generation ~100 MB of dead buffers waited
// for a collection and, freshly allocated each time, cost page faults; a 1 MB young generation collects them
// while they are still in cache: the stand-in hub's 1.9 GB took 4.6 s and 191 MB to fetch and verify alone,
// 3.2 s and 134 MB with it (bench/download-extract.ts, bench/RESULTS.md).
// Not for every command: `data validate` allocates short-lived strings at a rate where these settings cost 50% time.

/** The V8 flags of eval and generate. */
export const GC_FLAGS = ['--heap-growing-percent=100', '--max-semi-space-size=16'];

/** The V8 flags of `data download`. */
export const STREAMING_GC_FLAGS = ['--max-semi-space-size=1'];

/** The commands that run with them (bin/cxrbench.js), and that their benchmarks run with them too. */
export const GC_COMMANDS = new Set(['eval', 'generate']);

/** The flags a command line runs with (its first words after `cxrbench`), or none. */
export function gcFlagsFor(args) {
  if (GC_COMMANDS.has(args[0] ?? '')) return GC_FLAGS;
  if (args[0] === 'data' && args[1] === 'download') return STREAMING_GC_FLAGS;
  return [];
}
