// The CPU a run of gbatch processes took: each process's own (a preload writes it at exit), the
// PostgreSQL server's over the same span, and how busy the whole host was.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, runGbatch, tempDir, removeDir } from './harness.mjs';
import { hostBusy, hostCpu, postgresCpuSeconds } from './host-cpu.mjs';

const CPU_AT_EXIT = join(root, 'bench/lib/cpu-at-exit.cjs');

/** `runGbatch` with the process's CPU seconds (user + system) in `cpuS`. */
export async function runGbatchWithCpu(args, options = {}) {
  const dir = tempDir('cpu');
  const file = join(dir, 'cpu.json');
  try {
    const run = await runGbatch(args, {
      ...options,
      env: { ...options.env, BENCH_CPU_FILE: file },
      nodeArgs: ['--require', CPU_AT_EXIT, ...(options.nodeArgs ?? [])],
    });
    let cpuS = null;
    try {
      const cpu = JSON.parse(readFileSync(file, 'utf8'));
      cpuS = (cpu.user_us + cpu.system_us) / 1e6;
    } catch {
      // killed before exit
    }
    return { ...run, cpuS };
  } finally {
    removeDir(dir);
  }
}

/** Starts watching the host and the PostgreSQL server (postmaster `pgPid`, or null); `end()` gives the figures. */
export function watchCpu(pgPid) {
  const host = hostCpu();
  const pg = pgPid ? postgresCpuSeconds(pgPid) : null;
  return {
    end() {
      const pgNow = pgPid ? postgresCpuSeconds(pgPid) : null;
      const { busy, load1 } = hostBusy(host, hostCpu());
      return { hostBusy: busy, load1, postgresCpuS: pg != null && pgNow != null ? +(pgNow - pg).toFixed(2) : null };
    },
  };
}
