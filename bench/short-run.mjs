// Short commands, side by side: `gbatch run` on a few chat rows against a simulator answering at once, this
// checkout alternating with another (a built older commit), each run timed from spawn to exit in wall time
// and in the process's CPU (user + system, counted by GNU time after the process is gone: work V8 finishes on
// its own threads after the `exit` event counts too). What a short run costs is mostly the process: Node's
// start, the bundle's load, the journal's opening, and its exit.
// Usage: npm run build && node bench/short-run.mjs <other-checkout-dir> [rounds=8] [rows=3]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import {
  checkoutRunArgs,
  machine,
  median,
  removeDir,
  report,
  requireBuild,
  root,
  startSim,
  tempDir,
} from './lib/harness.mjs';

const TIME = '/usr/bin/time';

const [other, rounds = '8', rows = '3'] = process.argv.slice(2);
if (!other) {
  console.error('usage: node bench/short-run.mjs <other-checkout-dir> [rounds] [rows]');
  process.exit(2);
}
requireBuild();
if (!existsSync(TIME)) {
  console.error(`short-run needs GNU time at ${TIME} (apt-get install time)`);
  process.exit(2);
}
const dir = tempDir('short-run');
const manifest = await chatJsonl(join(dir, 'chat.jsonl'), Number(rows));
const sim = await startSim(['--latency-ms', '1', '--api-key', 'sk-bench=1000000']);
const env = { ...process.env, GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
const checkouts = { this: root, other };
const wallS = { this: [], other: [] };
const cpuS = { this: [], other: [] };
try {
  for (let round = 0; round < Number(rounds); round++) {
    for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const started = performance.now();
      const child = spawn(
        TIME,
        [
          '-f',
          '%U %S',
          process.execPath,
          ...checkoutRunArgs(checkouts[name], manifest, dir, `${name}-${round}`, ['--quiet']),
        ],
        { env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      if (code !== 0) throw new Error(`${name}: gbatch run exited ${code}: ${stderr}`);
      const [user, system] = stderr.trim().split('\n').pop().split(' ').map(Number);
      wallS[name].push((performance.now() - started) / 1000);
      cpuS[name].push(user + system);
    }
  }
} finally {
  await sim.stop();
  removeDir(dir);
}
const round3 = (x) => Math.round(x * 1000) / 1000;
report({
  benchmark: 'short-run',
  machine: machine(),
  rows: Number(rows),
  rounds: Number(rounds),
  median_wall_s: { this: round3(median(wallS.this)), other: round3(median(wallS.other)) },
  median_cpu_s: { this: round3(median(cpuS.this)), other: round3(median(cpuS.other)) },
});
