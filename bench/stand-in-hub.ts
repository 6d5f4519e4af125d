// The stand-in hub of bench/download-extract.ts in a process of its own: serves the archive parts in the folder it
// is given (every file in it, in name order, as one ReXGradient-160K repo at revision c…c) and prints its URL.
// Apart from the benchmark's own process, as a real hub and CDN are: serving from the process that had just made
// 2 GB of parts (and held their garbage) slowed the stand-in, and so both measured tools, by a second or more.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeHub } from '../test/helpers/fake-hub.js';

const dir = process.argv[2]!;
const files = readdirSync(dir)
  .sort()
  .map((path) => ({ path, content: readFileSync(join(dir, path)), lfs: true }));
const hub = await startFakeHub([{ name: 'rajpurkarlab/ReXGradient-160K', sha: 'c'.repeat(40), files }], { granted: [] }, 1000);
// the listing hashes every part once: done now, not in the first timed command
await fetch(`${hub.url}/api/datasets/rajpurkarlab/ReXGradient-160K/tree/main?recursive=true`).then((r) => r.arrayBuffer());
process.stdout.write(`${hub.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void hub.close().then(() => process.exit(0)));
