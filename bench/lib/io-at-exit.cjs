// Preloaded into a measured child (`node --require bench/lib/io-at-exit.cjs ...`): on exit, writes the
// process's /proc/self/io (Linux; all its threads, SQLite's included) to $BENCH_IO_FILE as JSON.
// write_bytes is what the process sent towards the disk (pages it dirtied); wchar counts every write()
// call, sockets and pipes included.
const { readFileSync, writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_IO_FILE;
  if (!file) return;
  try {
    const io = {};
    for (const line of readFileSync('/proc/self/io', 'utf8').trim().split('\n')) {
      const [key, value] = line.split(':');
      io[key.trim()] = Number(value);
    }
    writeFileSync(file, JSON.stringify(io));
  } catch {
    // not Linux: no figure
  }
});
