// The ceiling of one PostgreSQL journal (issue 35): N runners share one chat job against a simulator
// answering at once (latency 0), so the rows' pace is set by the journal and the host, not by the gateway.
// For each N (1, 10, 30, 100 by default): claims per second (first to last submission, from the rows' own
// `submitted_at`), settled rows per second (first submission to the last `finished_at`), and what each row
// cost the job's own PostgreSQL sessions, counted by a proxy on the wire (bench/lib/pg-wire-counter.mjs):
// round trips, statements, the backends' CPU; also the sessions the runners opened and the most open at
// once. The server-wide WAL position's advance per row (pg_current_wal_lsn) is given too, but counts
// whatever else the server wrote meanwhile.
//
// How 30 and 100 runners are measured on a small host, and why:
// - The server is a throwaway cluster of the benchmark's own (bench/lib/pg-private-cluster.mjs: initdb in
//   /dev/shm, max_connections 1000, stopped and deleted at the end), not the tests' server (100 sessions,
//   shared with other work): a runner's pool opens up to 8 sessions, and 100 runners need ~800 at once.
//   Sessions are then not the limit, and nothing else the tests' server runs shares its locks. `--server
//   shared` runs on the tests' server instead (GBATCH_BENCH_PG_URL), where --max-sessions skips what would
//   not fit.
// - Runners are spread over at most --processes processes (default 10), each hosting its share as
//   `runJob`s of the library (bench/lib/pg-runner-host.mjs): every runner has its own pool and runner id,
//   as a `gbatch run` process does. A hundred Node processes on two cores would spend the run starting
//   (about 1 s of CPU each) and context-switching: the host, not the database. With 10 processes, 1 and 10
//   runners are placed as before (one runner per process); 30 and 100 add runners, not processes.
// - A smaller per-runner pool was not chosen: it changes what each runner can overlap, so the figures
//   would not be a hundred of today's runners.
// The host's CPU is still shared by the runners and the server: `host.busy` says how close to the cores a
// run came, and the backends' CPU per row is the database's cost whatever the pace.
// `--latency-ms` makes the gateway answer after that long instead: `--runners 1,10 --rows 4000 --latency-ms 1000`
// is the scaling job of issue 35 (ten runners x --concurrency 20 against one), its server cost counted on the
// job's own sessions, with the host far from its cores.
// `--statement-times` loads pg_stat_statements into the private cluster (statements inside the SQL functions
// too) and reports, per row, the server's execution and planning time by statement: where the CPU goes. It
// costs time itself, so the run's other figures are not comparable with a run without it.
// Usage: npm run build && node bench/pg-ceiling.mjs [--runners 1,10,30,100] [--rows 6000] [--concurrency 20]
//   [--processes 10] [--server private|shared] [--max-sessions 60 on the shared server] [--latency-ms 0]
//   [--statement-times]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { hostBusy, hostCpu } from './lib/host-cpu.mjs';
import { flag, machine, removeDir, report, requireBuild, root, startSim, tempDir } from './lib/harness.mjs';
import { startPrivateCluster } from './lib/pg-private-cluster.mjs';
import { createPgSchema, PG_BENCH_URL } from './lib/pg-schema.mjs';
import { startPgWireCounter } from './lib/pg-wire-counter.mjs';

const RUNNER_HOST = join(root, 'bench/lib/pg-runner-host.mjs');
const PRIVATE_MAX_CONNECTIONS = 1000;

export async function pgCeiling({
  runners = [1, 10, 30, 100],
  rows = 6_000,
  concurrency = 20,
  latencyMs = 0,
  statementTimes = false,
  processes = 10,
  server = 'private',
  maxSessions = server === 'private' ? PRIVATE_MAX_CONNECTIONS - 20 : 60,
} = {}) {
  requireBuild();
  const dir = tempDir('pg-ceiling');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const results = [];
  let sessionsPerRunner;
  let cluster;
  try {
    if (statementTimes && server !== 'private') throw new Error('--statement-times needs the private cluster');
    cluster =
      server === 'private'
        ? await startPrivateCluster({
            maxConnections: PRIVATE_MAX_CONNECTIONS,
            settings: statementTimes ? STATEMENT_TIMES_SETTINGS : [],
          })
        : undefined;
    const base = cluster?.url ?? PG_BENCH_URL;
    for (const count of runners) {
      if (sessionsPerRunner !== undefined && count * sessionsPerRunner > maxSessions) {
        results.push({
          runners: count,
          skipped: `would open ~${Math.ceil(count * sessionsPerRunner)} sessions at once (${sessionsPerRunner.toFixed(1)} per runner), over --max-sessions ${maxSessions}`,
        });
        continue;
      }
      // A configuration that fails (a runner's exit, rows not done) is a finding: said on its line, the next one run.
      const run = { dir, manifest, env, base, count, rows, concurrency, processes, statementTimes };
      const result = await ceilingRun(run).catch((err) => ({
        runners: count,
        failed: String(err?.message ?? err).slice(0, 1500),
      }));
      if (result.sessions) sessionsPerRunner = Math.max(sessionsPerRunner ?? 0, result.sessions.peak_open / count);
      process.stderr.write(`${JSON.stringify(result)}\n`);
      results.push(result);
    }
  } finally {
    await cluster?.stop();
    await sim.stop();
    removeDir(dir);
  }
  return {
    benchmark: 'pg-ceiling',
    machine: machine(),
    server: cluster ? `private cluster, max_connections ${PRIVATE_MAX_CONNECTIONS}` : 'shared',
    rows,
    latency_ms: latencyMs,
    concurrency_per_runner: concurrency,
    results,
  };
}

async function ceilingRun({ dir, manifest, env, base, count, rows, concurrency, processes, statementTimes }) {
  const db = await createPgSchema('bench_pg_ceiling', base);
  const wire = await startPgWireCounter(base);
  try {
    if (statementTimes) {
      await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await db.query('SELECT pg_stat_statements_reset()');
    }
    const options = { journal: wire.url(db.url), out: join(dir, `out-${count}`), concurrency };
    const hosts = Math.min(count, processes);
    const lsnBefore = await currentLsn(db);
    const host = hostCpu();
    const started = performance.now();
    const ends = await Promise.all(
      Array.from({ length: hosts }, (_, i) =>
        hostRunners({ runners: Math.floor(count / hosts) + (i < count % hosts ? 1 : 0), job: manifest, options }, env),
      ),
    );
    const wallMs = performance.now() - started;
    const { busy, load1 } = hostBusy(host, hostCpu());
    const runnerEnds = ends.flatMap((e) => e.ends);
    const logs = runnerEnds.flatMap((e) => e.logs ?? []);
    for (const end of runnerEnds)
      if (end.code !== 0)
        throw new Error(
          `a runner exited ${end.code}: ${String(end.message).slice(0, 600)}; runners' log lines: ${logs.length}, ` +
            `first: ${JSON.stringify(logs.slice(0, 5))}`,
        );
    const walBytes = await walSince(db, lsnBefore);
    const wireTotals = wire.totals();
    const {
      rows: [span],
    } = await db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE state = 'downloaded')::int AS done,
        min(submitted_at)::float8 AS first_submit, max(submitted_at)::float8 AS last_submit,
        max(finished_at)::float8 AS last_finish FROM items`,
    );
    if (span.n !== rows || span.done !== rows) throw new Error(`rows not all done: ${JSON.stringify(span)}`);
    const tables = await tableWrites(db);
    const perRow = (n) => +(n / rows).toFixed(2);
    return {
      runners: count,
      processes: hosts,
      wall_s: +(wallMs / 1000).toFixed(2),
      claims_per_s: Math.round(rows / ((span.last_submit - span.first_submit) / 1000)),
      settled_per_s: Math.round(rows / ((span.last_finish - span.first_submit) / 1000)),
      per_row: {
        round_trips: perRow(wireTotals.roundTrips),
        statements: perRow(wireTotals.statements),
        postgres_cpu_ms: +(wireTotals.backendCpuNs / 1e6 / rows).toFixed(3),
        gbatch_cpu_ms: +((ends.reduce((n, e) => n + (e.cpuS ?? 0), 0) * 1000) / rows).toFixed(3),
        server_wal_bytes: Math.round(walBytes / rows),
        ...tables,
      },
      sessions: { opened: wireTotals.sessions, peak_open: wireTotals.peakOpen },
      // The statements behind the round trips, per row: which of a row's moves, a runner's upkeep or its
      // claims cost the server most.
      top_statements_per_row: wire.takeTopStatements(8).map(({ text, count }) => ({ text, per_row: perRow(count) })),
      ...(statementTimes ? { statement_ms_per_row: await statementMsPerRow(db, rows) } : {}),
      host: { busy, load_1m_at_end: load1 },
    };
  } finally {
    await wire.stop();
    await db.drop();
  }
}

/** A process hosting `config.runners` runners of the job (lib/pg-runner-host.mjs): their exit codes and its CPU. */
function hostRunners(config, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER_HOST, JSON.stringify(config)], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1);
      if (code !== 0 || !last) reject(new Error(`a runner host exited ${code}: ${stderr.slice(-3000)}`));
      else resolve(JSON.parse(last));
    });
  });
}

const STATEMENT_TIMES_SETTINGS = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
  'pg_stat_statements.track_planning=on',
];

/**
 * The server's time per row by statement (execution + planning, ms; wall time in the server, so a COPY counts
 * its wait for the client's rows), the costliest first; statements inside the SQL functions included.
 */
async function statementMsPerRow(db, rows) {
  const { rows: top } = await db.query(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS text, calls::int AS calls, toplevel,
       (total_exec_time + total_plan_time)::float8 AS ms, total_plan_time::float8 AS plan_ms,
       shared_blks_hit::float8 AS hits
     FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY ms DESC LIMIT 16`,
  );
  return top.map(({ text, calls, toplevel, ms, plan_ms, hits }) => ({
    text,
    toplevel,
    calls_per_row: +(calls / rows).toFixed(2),
    ms_per_row: +(ms / rows).toFixed(3),
    planning_ms_per_row: +(plan_ms / rows).toFixed(3),
    // Pages read from the buffer cache: the statement's own work, where its time also counts waits and the host.
    buffer_hits_per_row: +(hits / rows).toFixed(1),
  }));
}

async function currentLsn(db) {
  return (await db.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
}

async function walSince(db, lsn) {
  return Number(
    (await db.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8 AS bytes', [lsn])).rows[0].bytes,
  );
}

/**
 * Row writes per chat row in the job's schema, by table (pg_stat_user_tables: inserts, updates and how many of those
 * were HOT, deletes), read after the run's last commit (the statistics are flushed when each session ends).
 */
async function tableWrites(db) {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await db.query(
    `SELECT relname, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot, n_tup_del::int AS del
      FROM pg_stat_user_tables WHERE schemaname = current_schema() AND n_tup_ins + n_tup_upd + n_tup_del > 0
      ORDER BY relname`,
  );
  return { table_writes: Object.fromEntries(rows.map(({ relname, ...n }) => [relname, n])) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await pgCeiling({
      runners: String(flag('runners', '1,10,30,100')).split(',').map(Number),
      rows: Number(flag('rows', 6_000)),
      concurrency: Number(flag('concurrency', 20)),
      latencyMs: Number(flag('latency-ms', 0)),
      statementTimes: process.argv.includes('--statement-times'),
      processes: Number(flag('processes', 10)),
      server: String(flag('server', 'private')),
      ...(flag('max-sessions', undefined) !== undefined ? { maxSessions: Number(flag('max-sessions')) } : {}),
    }),
  );
}
