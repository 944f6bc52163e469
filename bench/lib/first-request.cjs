// Preloaded into a measured child (`node --require bench/lib/first-request.cjs ...`): at the first HTTP request
// whose headers go on the wire (undici's diagnostics channel), writes the epoch time and the process's CPU so far
// (user + system, ms) as JSON to $BENCH_FIRST_FILE; at exit, the same as `exit` when no request left.
const dc = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_FIRST_FILE;
let written = false;
function write(what) {
  if (written || !file) return;
  written = true;
  const { user, system } = process.cpuUsage();
  writeFileSync(file, JSON.stringify({ what, at_ms: Date.now(), cpu_ms: (user + system) / 1000 }));
}
dc.subscribe('undici:client:sendHeaders', () => write('request'));
process.on('exit', () => write('exit'));
