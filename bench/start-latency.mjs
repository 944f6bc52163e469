// How soon runners send (issue 35): N `gbatch run` processes spawned at once on one fresh PostgreSQL job of
// chat rows, each timed from its spawn to its first request's headers on the wire (undici's diagnostics
// channel, bench/lib/first-request.cjs), in wall time and in the process's own CPU, then killed. The CPU is
// the figure that does not move with the host's load; `gbatch --version` gives the floor (Node's start and
// the bundle's load). 1 and 10 runners by default, rounds alternating.
// Usage: npm run build && node bench/start-latency.mjs [--runners 1,10] [--rows 4000] [--rounds 3]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { flag, machine, median, removeDir, report, requireBuild, root, startSim, tempDir } from './lib/harness.mjs';
import { createPgSchema } from './lib/pg-schema.mjs';

const FIRST_REQUEST = join(root, 'bench/lib/first-request.cjs');

export async function startLatency({ runners = [1, 10], rows = 4_000, rounds = 3 } = {}) {
  requireBuild();
  const dir = tempDir('start-latency');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', '1000', '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const floor = [];
  const sides = Object.fromEntries(runners.map((n) => [n, { wallS: [], cpuS: [] }]));
  try {
    for (let round = 0; round < rounds; round++) {
      floor.push(await firstRequest(dir, ['--version'], env, `v${round}`));
      for (const count of round % 2 === 0 ? runners : [...runners].reverse()) {
        const db = await createPgSchema('bench_start');
        try {
          const args = ['run', manifest, '--journal', db.url, '--out', join(dir, `out-${round}-${count}`), '--quiet'];
          const firsts = await Promise.all(
            Array.from({ length: count }, (_, i) => firstRequest(dir, args, env, `${round}-${count}-${i}`)),
          );
          for (const f of firsts)
            if (f.what !== 'request') throw new Error(`a runner exited before sending: ${f.stderr}`);
          sides[count].wallS.push(...firsts.map((f) => f.wallS));
          sides[count].cpuS.push(...firsts.map((f) => f.cpuS));
        } finally {
          await db.drop();
        }
      }
    }
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const stat = (values) => ({ median: +median(values).toFixed(3), max: +Math.max(...values).toFixed(3) });
  return {
    benchmark: 'start-latency',
    machine: machine(),
    rows,
    rounds,
    version_floor: { wall_s: stat(floor.map((f) => f.wallS)), cpu_s: stat(floor.map((f) => f.cpuS)) },
    runners: Object.fromEntries(
      Object.entries(sides).map(([n, side]) => [n, { wall_s: stat(side.wallS), cpu_s: stat(side.cpuS) }]),
    ),
    targets: { wall_s_max: 1 },
  };
}

/** Spawns gbatch; resolves with its spawn-to-first-request wall and CPU (s), killing it once it sent. */
async function firstRequest(dir, args, env, name) {
  const file = join(dir, `first-${name}.json`);
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['--require', FIRST_REQUEST, join(root, 'bin/gbatch.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env, BENCH_FIRST_FILE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    const first = readFirst(file);
    if (first) {
      child.kill('SIGKILL');
      await exited;
      return { what: first.what, wallS: (first.at_ms - spawnedAt) / 1000, cpuS: first.cpu_ms / 1000, stderr };
    }
    if (child.exitCode !== null) return { what: 'none', wallS: NaN, cpuS: NaN, stderr };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function readFirst(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await startLatency({
      runners: String(flag('runners', '1,10')).split(',').map(Number),
      rows: Number(flag('rows', 4_000)),
      rounds: Number(flag('rounds', 3)),
    }),
  );
}
