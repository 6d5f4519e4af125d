// Preloaded into a measured child process (NODE_OPTIONS=--import): prints its peak RSS on exit, for bench/.
// VmHWM from /proc is this program's own peak. getrusage's maxRSS is not: it survives execve, so a child
// forked from a large parent (the bench itself, holding pre-encoded bodies) reports the parent's size.
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

// once, from the main thread (NODE_OPTIONS reaches worker threads too, and one ending early would report early)
if (isMainThread) process.on('exit', () => {
  let kb = process.resourceUsage().maxRSS;
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) kb = Number(hwm[1]);
  } catch {
    // not Linux: maxRSS it is
  }
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${kb}\n`);
});
