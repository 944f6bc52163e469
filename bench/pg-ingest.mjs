// Ingest into the PostgreSQL journal (issue 11): a 1,000,000-row chat JSONL manifest (the generator of
// bench/ingest.mjs) loaded with `gbatch run <manifest> --journal URL --ingest-only`, against the same
// into a SQLite journal (`--state`) as the peer. Rows/s and peak RSS of the gbatch process; a fresh
// schema / .db per run; runs alternate (SQLite, PostgreSQL, ...), medians. Also the CPU seconds of the
// gbatch process and of the PostgreSQL server (every session on it) over each run, and the host's busy share.
// Usage: npm run build && node bench/pg-ingest.mjs [--rows N] [--rounds N]
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { chatJsonl } from './lib/manifests.mjs';
import { runGbatchWithCpu, watchCpu } from './lib/cpu-of-run.mjs';
import { flag, machine, median, removeDir, report, requireBuild, tempDir } from './lib/harness.mjs';
import { createPgSchema, postmasterPid } from './lib/pg-schema.mjs';

export async function pgIngest({ rows = 1_000_000, rounds = 2 } = {}) {
  requireBuild();
  const dir = tempDir('pg-ingest');
  const runs = { sqlite: [], postgres: [] };
  const pgPid = await postmasterPid();
  try {
    const manifest = await chatJsonl(join(dir, 'm.jsonl'), rows);
    for (let round = 0; round < rounds; round++) {
      for (const side of ['sqlite', 'postgres']) {
        const db = side === 'postgres' ? await createPgSchema('bench_pg_ingest') : null;
        const state = join(dir, 'journal.db');
        try {
          const journal = db ? ['--journal', db.url] : ['--state', state];
          const cpu = watchCpu(pgPid);
          const run = await runGbatchWithCpu(['run', manifest, ...journal, '--ingest-only', '--json', '--quiet']);
          const { hostBusy, postgresCpuS } = cpu.end();
          if (run.code !== 0) throw new Error(`ingest (${side}) exited ${run.code}: ${run.stderr.slice(-500)}`);
          const inserted = JSON.parse(run.stdout).ingest?.inserted;
          if (inserted !== rows) throw new Error(`ingest (${side}) inserted ${inserted} of ${rows} rows`);
          runs[side].push({ wallMs: run.wallMs, rssKb: run.maxRssKb, gbatchCpuS: run.cpuS, postgresCpuS, hostBusy });
        } finally {
          await db?.drop();
          for (const suffix of ['', '-wal', '-shm']) rmSync(state + suffix, { force: true });
        }
      }
    }
  } finally {
    removeDir(dir);
  }
  const summary = (side) => {
    const wall = median(runs[side].map((r) => r.wallMs));
    return {
      rows_per_s: Math.round(rows / (wall / 1000)),
      wall_s: wall / 1000,
      peak_rss_mb: Math.round(median(runs[side].map((r) => r.rssKb)) / 1024),
      // CPU seconds over the run: the gbatch process's (every thread), the PostgreSQL server's (every session).
      gbatch_cpu_s: runs[side].map((r) => r.gbatchCpuS),
      postgres_cpu_s: runs[side].map((r) => r.postgresCpuS),
      host_busy: runs[side].map((r) => r.hostBusy),
      runs_s: runs[side].map((r) => r.wallMs / 1000),
      runs_rss_mb: runs[side].map((r) => Math.round(r.rssKb / 1024)),
    };
  };
  const postgres = summary('postgres');
  const sqlite = summary('sqlite');
  return {
    benchmark: 'pg-ingest',
    machine: machine(),
    rows,
    rounds,
    format: 'jsonl',
    postgres,
    sqlite,
    postgres_over_sqlite_rows_per_s: +(postgres.rows_per_s / sqlite.rows_per_s).toFixed(3),
    targets: { rows_per_s: 50_000, peak_rss_mb: 300 },
    pass: postgres.rows_per_s >= 50_000 && postgres.peak_rss_mb <= 300,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await pgIngest({ rows: Number(flag('rows', 1_000_000)), rounds: Number(flag('rounds', 2)) }));
}
