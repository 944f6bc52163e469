// The checks `npm test` runs before the suite, given as npm script names, two at a time by default: each is
// one process on one core (tsc, eslint, prettier), so on two cores the set takes about half of what it takes
// one after the other. Each check's output is printed whole when it ends, under its name; the exit code is the
// first failed check's, once every check has ended.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const scripts = process.argv.slice(2);
const slots = Math.max(2, availableParallelism());
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.once('error', (err) => resolve({ script, code: 1, out: `${out}${err.message}\n`, started }));
    child.once('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), out, started }));
  });
}

const queue = [...scripts];
let failed = 0;
async function worker() {
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
    const { code, out, started } = await run(script);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n${out}`);
    if (code !== 0 && failed === 0) failed = code;
  }
}
await Promise.all(Array.from({ length: Math.min(slots, scripts.length) }, worker));
process.exit(failed);
