// Garbage-collector settings for the commands that hold much data. V8's defaults let the heap grow to several
// times its live size on a machine with much free memory: a 41K-question evaluation holds ~50 MB but peaked at
// 440 MB, and generate's diversity filter on 600K questions peaked at 1.2 GB. Letting the heap grow to twice the
// live set (not a fixed cap, so no run is too big) brings them to ~240 MB and ~870 MB at the same speed or better
// (bench/RESULTS.md; 30% growth gave ~190 MB but cost 20% more time on large images).
// Not for every command: `data validate` allocates short-lived strings at a rate where these settings cost 50% time.

/** The V8 flags. */
export const GC_FLAGS = ['--heap-growing-percent=100', '--max-semi-space-size=16'];

/** The commands that run with them (bin/cxrbench.js), and that their benchmarks run with them too. */
export const GC_COMMANDS = new Set(['eval', 'generate']);
