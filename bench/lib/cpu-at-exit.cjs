// Preloaded into a measured child (`node --require bench/lib/cpu-at-exit.cjs ...`): on exit, writes the
// process's user and system CPU time (microseconds) as JSON to $BENCH_CPU_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_CPU_FILE;
  if (!file) return;
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ user_us: userCPUTime, system_us: systemCPUTime }));
});
