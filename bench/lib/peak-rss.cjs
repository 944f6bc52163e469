// Preloaded into a measured child (`node --require bench/lib/peak-rss.cjs ...`): on exit, writes the
// process's peak resident set size (kilobytes) to $BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});
