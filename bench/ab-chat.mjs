// Side by side: this checkout's gbatch and another checkout's (a built older commit), alternating, against one
// simulator, on the chat benchmark's rows (by default 20,000 rows, 100 ms latency, --concurrency 200). For a
// machine whose speed drifts within minutes, only such alternating runs compare two builds. Per build: wall
// time, the process's CPU (user + system, at exit), and its first request's headers on the wire after spawn,
// in wall and in CPU (bench/lib/first-request.cjs): the start's cost, which moves least with the host's load.
// Usage: npm run build && node bench/ab-chat.mjs <other-checkout-dir> [rounds=3] [rows=20000]
//   [--latency-ms 100] [--concurrency 200]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { checkoutRunArgs, flag, median, removeDir, requireBuild, root, startSim, tempDir } from './lib/harness.mjs';

const CPU_AT_EXIT = join(root, 'bench/lib/cpu-at-exit.cjs');
const FIRST_REQUEST = join(root, 'bench/lib/first-request.cjs');

const [other, rounds = '3', rows = '20000'] = process.argv.slice(2).filter((a, i, all) => !isFlag(all, i));
if (!other) {
  console.error(
    'usage: node bench/ab-chat.mjs <other-checkout-dir> [rounds] [rows] [--latency-ms N] [--concurrency N]',
  );
  process.exit(2);
}
const latencyMs = Number(flag('latency-ms', 100));
const concurrency = Number(flag('concurrency', 200));
requireBuild();
const dir = tempDir('ab-chat');
const manifest = await chatJsonl(join(dir, 'chat.jsonl'), Number(rows));
const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
const env = { ...process.env, GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
const checkouts = { this: root, other };
const sides = () => ({ this: [], other: [] });
const seconds = sides();
const cpuS = sides();
const firstWallS = sides();
const firstCpuS = sides();
try {
  for (let round = 0; round < Number(rounds); round++) {
    for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const cpuFile = join(dir, `cpu-${name}-${round}.json`);
      const firstFile = join(dir, `first-${name}-${round}.json`);
      const args = [
        '--require',
        CPU_AT_EXIT,
        '--require',
        FIRST_REQUEST,
        ...checkoutRunArgs(checkouts[name], manifest, dir, `${name}-${round}`, [
          '--concurrency',
          String(concurrency),
          '--quiet',
          '--json',
        ]),
      ];
      const started = Date.now();
      const code = await new Promise((resolve) =>
        spawn(process.execPath, args, {
          env: { ...env, BENCH_CPU_FILE: cpuFile, BENCH_FIRST_FILE: firstFile },
          stdio: ['ignore', 'ignore', 'inherit'],
        }).on('close', resolve),
      );
      if (code !== 0) throw new Error(`${name} exited ${code}`);
      seconds[name].push(round2((Date.now() - started) / 1000));
      const cpu = JSON.parse(readFileSync(cpuFile, 'utf8'));
      cpuS[name].push(round2((cpu.user_us + cpu.system_us) / 1e6));
      const first = JSON.parse(readFileSync(firstFile, 'utf8'));
      firstWallS[name].push(round2((first.at_ms - started) / 1000));
      firstCpuS[name].push(round2(first.cpu_ms / 1000));
    }
  }
  const medians = (values) => ({ this: median(values.this), other: median(values.other) });
  console.log(
    JSON.stringify({
      benchmark: 'ab-chat',
      rows: Number(rows),
      latency_ms: latencyMs,
      concurrency,
      seconds,
      median_s: medians(seconds),
      cpu_s: cpuS,
      median_cpu_s: medians(cpuS),
      first_request_s: firstWallS,
      median_first_request_s: medians(firstWallS),
      median_first_request_cpu_s: medians(firstCpuS),
    }),
  );
} finally {
  await sim.stop();
  removeDir(dir);
}

function round2(value) {
  return Number(value.toFixed(2));
}

/** Whether argument i is a `--flag` or its value. */
function isFlag(all, i) {
  return all[i].startsWith('--') || (i > 0 && all[i - 1].startsWith('--'));
}
