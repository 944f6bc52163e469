// Many runners on one PostgreSQL journal (issue 11): chat rows against the simulator at 500 ms latency
// (so the requests in flight, not the 2 cores, bound the run), one `gbatch run --concurrency 50` vs
// three such runners started at once on the same job (real child processes sharing the journal, which
// split the rows with SKIP LOCKED and end together). Throughput = rows / wall time from the first spawn
// to the last runner's exit; ideal = rows x latency / (runners x 50). A fresh schema per run. Rounds
// alternate the order (one, three / three, one), medians. From the simulator's ledger: spawn to the first
// chat request, the request rate in the middle of the run, and the last request to the last exit. CPU:
// gbatch's processes (preload), the PostgreSQL server's (/proc, every session), the host's busy share.
// 9,000 rows by default (one runner ~93 s, three ~33 s; the benchmark ~4.5 min): at 3,000 rows one runner's
// own fixed costs (start, the last answer, 1.7 s on a 30 s ideal) cap the ratio at 31.7 / 11.7 = 2.71x before
// the three add any of theirs, so that size measures start-up more than scaling (BENCHMARKS.md, PostgreSQL scaling).
// --analyze-after-ingest (diagnostic): the benchmark runs ANALYZE on `items` as soon as the ingest has
// committed, in every run (gbatch does not: the table has no statistics).
// Usage: npm run build && node bench/pg-scaling.mjs [--rows N] [--rounds N] [--analyze-after-ingest]
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { runGbatchWithCpu, watchCpu } from './lib/cpu-of-run.mjs';
import { flag, machine, median, removeDir, report, requireBuild, startSim, tempDir } from './lib/harness.mjs';
import { analyzeOnceIngested, createPgSchema, postmasterPid } from './lib/pg-schema.mjs';
import { chatPosts, runPhases } from './lib/run-phases.mjs';

export async function pgScaling({
  rows = 9_000,
  rounds = 2,
  latencyMs = 500,
  concurrency = 50,
  runners = 3,
  analyzeAfterIngest = false,
} = {}) {
  requireBuild();
  const dir = tempDir('pg-scaling');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const sides = { one: 1, many: runners };
  const runs = { one: [], many: [] };
  const pgPid = await postmasterPid();
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['one', 'many'] : ['many', 'one'];
      for (const side of order)
        runs[side].push(
          await timedRun(
            dir,
            manifest,
            env,
            sides[side],
            concurrency,
            `${round}-${side}`,
            pgPid,
            analyzeAfterIngest ? rows : 0,
          ),
        );
    }
    const posts = chatPosts(await sim.ledger());
    for (const run of Object.values(runs).flat()) Object.assign(run, runPhases(run, posts, rows));
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const summary = (side) => {
    const wall = median(runs[side].map((r) => r.wallMs));
    const idealMs = (rows * latencyMs) / (sides[side] * concurrency);
    return {
      wall_s: wall / 1000,
      rows_per_s: Math.round(rows / (wall / 1000)),
      over_ideal: +(wall / idealMs).toFixed(3),
      first_request_s: median(runs[side].map((r) => r.firstRequestS)),
      steady_rps: Math.round(median(runs[side].map((r) => r.steadyRps))),
      last_request_to_exit_s: median(runs[side].map((r) => r.tailS)),
      journal_commits: median(runs[side].map((r) => r.commits)),
      peak_rss_mb: Math.round(median(runs[side].flatMap((r) => r.rssKb)) / 1024),
      // CPU per row (ms): gbatch's processes, and the PostgreSQL server's (every session on it) over the run.
      gbatch_cpu_ms_per_row: +((median(runs[side].map((r) => r.gbatchCpuS)) * 1000) / rows).toFixed(2),
      postgres_cpu_ms_per_row:
        runs[side][0].postgresCpuS == null
          ? null
          : +((median(runs[side].map((r) => r.postgresCpuS)) * 1000) / rows).toFixed(2),
      host_busy: runs[side].map((r) => r.hostBusy),
      load_1m_at_end: runs[side].map((r) => r.load1),
      runs_s: runs[side].map((r) => r.wallMs / 1000),
    };
  };
  const one = summary('one');
  const many = summary('many');
  return {
    benchmark: 'pg-scaling',
    machine: machine(),
    analyze_after_ingest: analyzeAfterIngest,
    rows,
    latency_ms: latencyMs,
    concurrency_per_runner: concurrency,
    runners,
    rounds,
    one_runner: one,
    many_runners: many,
    speedup: +(one.wall_s / many.wall_s).toFixed(3),
    targets: { speedup: 2.7 },
    pass: one.wall_s / many.wall_s >= 2.7,
  };
}

/** `count` runners of one job on a fresh schema, spawned together; wall time to the last exit. */
async function timedRun(dir, manifest, env, count, concurrency, name, pgPid, analyzeAtRows) {
  const db = await createPgSchema('bench_pg_scaling');
  const analyze = analyzeAtRows > 0 ? analyzeOnceIngested(db, analyzeAtRows) : null;
  try {
    const args = [
      'run',
      manifest,
      '--journal',
      db.url,
      '--out',
      join(dir, `out-${name}`),
      '--concurrency',
      String(concurrency),
      '--quiet',
      '--json',
    ];
    const startedAtMs = Date.now();
    const started = performance.now();
    const cpu = watchCpu(pgPid);
    const ends = await Promise.all(Array.from({ length: count }, () => runGbatchWithCpu(args, { env })));
    const wallMs = performance.now() - started;
    const { hostBusy, load1, postgresCpuS } = cpu.end();
    for (const end of ends)
      if (end.code !== 0) throw new Error(`a runner exited ${end.code}: ${end.stderr.slice(-500)}`);
    const states = (await db.query('SELECT state, count(*)::int AS n FROM items GROUP BY state')).rows;
    if (states.length !== 1 || states[0].state !== 'downloaded')
      throw new Error(`rows not all done: ${JSON.stringify(states)}`);
    const summaries = ends.map((e) => JSON.parse(e.stdout));
    return {
      wallMs,
      startedAtMs,
      endedAtMs: startedAtMs + wallMs,
      rssKb: ends.map((e) => e.maxRssKb),
      commits: summaries.reduce((n, s) => n + (s.journal_commits ?? 0), 0),
      gbatchCpuS: ends.reduce((n, e) => n + (e.cpuS ?? 0), 0),
      postgresCpuS,
      hostBusy,
      load1,
    };
  } finally {
    analyze?.stop();
    await analyze?.done.catch(() => {});
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await pgScaling({
      rows: Number(flag('rows', 9_000)),
      rounds: Number(flag('rounds', 2)),
      analyzeAfterIngest: process.argv.includes('--analyze-after-ingest'),
    }),
  );
}
