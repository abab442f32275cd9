// Loaded with `node --import`: reports the process's peak resident memory (all threads) when it exits.
process.on('exit', () => {
  process.stderr.write(`\nkb-bench max_rss_kb=${process.resourceUsage().maxRSS}\n`);
});
