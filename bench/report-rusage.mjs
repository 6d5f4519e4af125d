// Preloaded into a measured child process (NODE_OPTIONS=--import): prints its peak RSS on exit, for bench/.
process.on('exit', () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
