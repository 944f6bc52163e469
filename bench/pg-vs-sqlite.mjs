// The PostgreSQL journal against the SQLite journal (issue 11): one runner, 20,000 chat rows against the
// simulator at 100 ms latency, --concurrency 200, --journal-sync full (the default) on both. A fresh
// journal per run (a new schema, a new .db file); runs alternate (SQLite, PostgreSQL, SQLite, ...),
// medians. From the simulator's ledger: spawn to the first chat request and the request rate from 20 %
// to 80 % of the requests, and the last request to the exit.
// --analyze-after-ingest adds a third side, diagnostic: PostgreSQL with ANALYZE run on `items` by the
// benchmark as soon as the ingest has committed (gbatch does not: the table has no statistics).
// Usage: npm run build && node bench/pg-vs-sqlite.mjs [--rows N] [--rounds N] [--analyze-after-ingest]
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import {
  flag,
  machine,
  median,
  removeDir,
  report,
  requireBuild,
  runGbatch,
  startSim,
  tempDir,
} from './lib/harness.mjs';
import { analyzeOnceIngested, createPgSchema } from './lib/pg-schema.mjs';
import { chatPosts, runPhases } from './lib/run-phases.mjs';

export async function pgVsSqlite({
  rows = 20_000,
  rounds = 2,
  latencyMs = 100,
  concurrency = 200,
  analyzeAfterIngest = false,
} = {}) {
  requireBuild();
  const dir = tempDir('pg-vs-sqlite');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const runs = { sqlite: [], postgres: [], ...(analyzeAfterIngest ? { postgres_analyzed: [] } : {}) };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const side of Object.keys(runs)) {
        const db = side === 'sqlite' ? null : await createPgSchema('bench_pg_vs_sqlite');
        const analyze = side === 'postgres_analyzed' ? analyzeOnceIngested(db, rows) : null;
        try {
          const journal = db ? ['--journal', db.url] : ['--state', join(dir, `r${round}.db`)];
          const startedAtMs = Date.now();
          const run = await runGbatch(
            [
              'run',
              manifest,
              ...journal,
              '--out',
              join(dir, `out-${round}-${side}`),
              '--concurrency',
              String(concurrency),
              '--quiet',
              '--json',
            ],
            { env },
          );
          if (run.code !== 0) throw new Error(`gbatch (${side}) exited ${run.code}: ${run.stderr.slice(-500)}`);
          analyze?.stop();
          runs[side].push({
            analyzedAfterMs: (await analyze?.done) ?? null,
            wallMs: run.wallMs,
            startedAtMs,
            endedAtMs: startedAtMs + run.wallMs,
            rssKb: run.maxRssKb,
            commits: JSON.parse(run.stdout).journal_commits ?? null,
          });
        } finally {
          analyze?.stop();
          await analyze?.done.catch(() => {});
          await db?.drop();
        }
      }
    }
    const posts = chatPosts(await sim.ledger());
    for (const run of Object.values(runs).flat()) Object.assign(run, runPhases(run, posts, rows));
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const idealMs = (rows * latencyMs) / concurrency;
  const summary = (side) => ({
    wall_s: median(runs[side].map((r) => r.wallMs)) / 1000,
    over_ideal: +(median(runs[side].map((r) => r.wallMs)) / idealMs).toFixed(3),
    first_request_s: median(runs[side].map((r) => r.firstRequestS)),
    steady_rps: Math.round(median(runs[side].map((r) => r.steadyRps))),
    last_request_to_exit_s: median(runs[side].map((r) => r.tailS)),
    journal_commits: median(runs[side].map((r) => r.commits)),
    peak_rss_mb: Math.round(median(runs[side].map((r) => r.rssKb)) / 1024),
    runs_s: runs[side].map((r) => r.wallMs / 1000),
    ...(side === 'postgres_analyzed' ? { analyzed_after_s: runs[side].map((r) => r.analyzedAfterMs / 1000) } : {}),
  });
  const sqlite = summary('sqlite');
  const postgres = summary('postgres');
  const ratio = postgres.wall_s / sqlite.wall_s;
  return {
    benchmark: 'pg-vs-sqlite',
    machine: machine(),
    rows,
    latency_ms: latencyMs,
    concurrency,
    rounds,
    journal_sync: 'full',
    ideal_s: idealMs / 1000,
    postgres,
    sqlite,
    postgres_over_sqlite: +ratio.toFixed(3),
    ...(analyzeAfterIngest
      ? {
          postgres_analyzed: summary('postgres_analyzed'),
          postgres_analyzed_over_sqlite: +(summary('postgres_analyzed').wall_s / sqlite.wall_s).toFixed(3),
        }
      : {}),
    targets: { postgres_over_sqlite: 1.15 },
    pass: ratio <= 1.15,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await pgVsSqlite({
      rows: Number(flag('rows', 20_000)),
      rounds: Number(flag('rounds', 2)),
      analyzeAfterIngest: process.argv.includes('--analyze-after-ingest'),
    }),
  );
}
