// Chat throughput and journal cost (issue 4): 20,000 chat rows against the simulator with 100 ms
// latency at --concurrency 200. gbatch's wall time vs the ideal N x L / C and vs a naive peer (plain
// fetch under a semaphore), the same run with the journal's sync off, and a run on a journal that
// already holds the rows (ingested untimed before it: what the run costs without validating and
// journaling them), and a second peer: the official `openai` SDK's client under the same semaphore
// (bench/lib/sdk-chat.mjs). Runs alternate, medians; CPU and peak RSS of gbatch and both peers.
// Usage: npm run build && node bench/chat-throughput.mjs [--rows N] [--rounds N] [--latency-ms N] [--concurrency N]
//   [--peers-only] (gbatch's journaled run and the two peers, without the sync-off and pre-ingested runs)
//   [--trace-slots] (GBATCH_SLOT_TRACE on gbatch's journaled runs: an answer to its slot's next request, by phase;
//   a diagnostic that costs a little time itself)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { chatJsonl } from './lib/manifests.mjs';
import {
  flag,
  machine,
  median,
  removeDir,
  report,
  requireBuild,
  root,
  runGbatch,
  startSim,
  tempDir,
} from './lib/harness.mjs';

const CPU_AT_EXIT = join(root, 'bench/lib/cpu-at-exit.cjs');
const PEAK_RSS = join(root, 'bench/lib/peak-rss.cjs');

export async function chatThroughput({
  rows = 20_000,
  rounds = 3,
  latencyMs = 100,
  concurrency = 200,
  peersOnly = false,
  traceSlots = false,
} = {}) {
  requireBuild();
  const dir = tempDir('chat');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const times = { gbatch: [], gbatchNoSync: [], preIngested: [], naive: [], sdk: [] };
  const rss = { gbatch: [], naive: [], sdk: [] };
  const cpu = { gbatch: [], naive: [], sdk: [] };
  /** [start, end] in epoch ms of each timed run, to find its requests in the simulator's ledger afterwards. */
  const windows = { gbatch: [], naive: [], sdk: [] };
  /** --trace-slots: each journaled run's slot cycles (src/pipeline/lanes/slot-trace.ts). */
  const slotCycles = [];
  let phases;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const sync of peersOnly ? ['full'] : ['full', 'off']) {
        const cpuFile = join(dir, `cpu-${round}-${sync}.json`);
        const slotFile = join(dir, `slots-${round}-${sync}.json`);
        const state = join(dir, `r${round}-${sync}.db`);
        const run = await runGbatch(
          [
            'run',
            manifest,
            '--state',
            state,
            '--out',
            join(dir, `out-${round}-${sync}`),
            '--concurrency',
            String(concurrency),
            '--journal-sync',
            sync,
            '--quiet',
            '--json',
          ],
          {
            env: { ...env, BENCH_CPU_FILE: cpuFile, ...(traceSlots ? { GBATCH_SLOT_TRACE: slotFile } : {}) },
            nodeArgs: ['--require', CPU_AT_EXIT],
          },
        );
        if (run.code !== 0) throw new Error(`gbatch exited ${run.code}: ${run.stderr.slice(-500)}`);
        (sync === 'full' ? times.gbatch : times.gbatchNoSync).push(run.wallMs);
        if (sync === 'full') {
          rss.gbatch.push(run.maxRssKb);
          cpu.gbatch.push(cpuSeconds(cpuFile));
          if (traceSlots) slotCycles.push(JSON.parse(readFileSync(slotFile, 'utf8')));
          windows.gbatch.push([run.startedAtMs, run.startedAtMs + run.wallMs]);
        }
      }
      if (!peersOnly) {
        const preState = join(dir, `r${round}-pre.db`);
        const ingested = await runGbatch(['run', manifest, '--ingest-only', '--state', preState, '--quiet', '--json'], {
          env,
        });
        if (ingested.code !== 0)
          throw new Error(`gbatch --ingest-only exited ${ingested.code}: ${ingested.stderr.slice(-500)}`);
        const pre = await runGbatch(
          [
            'run',
            manifest,
            '--state',
            preState,
            '--out',
            join(dir, `out-${round}-pre`),
            '--concurrency',
            String(concurrency),
            '--quiet',
            '--json',
          ],
          { env },
        );
        if (pre.code !== 0) throw new Error(`gbatch exited ${pre.code}: ${pre.stderr.slice(-500)}`);
        times.preIngested.push(pre.wallMs);
      }
      // The peers in turn, the order swapped each round.
      for (const peer of round % 2 === 0 ? ['naive', 'sdk'] : ['sdk', 'naive']) {
        const run = await runPeer(peer, manifest, concurrency, env, dir);
        times[peer].push(run.wallMs);
        rss[peer].push(run.maxRssKb);
        cpu[peer].push(run.cpuS);
        windows[peer].push([run.startedAtMs, run.startedAtMs + run.wallMs]);
      }
    }
    phases = requestPhases((await sim.ledger()).requests, windows, (rows * latencyMs) / concurrency);
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const idealMs = (rows * latencyMs) / concurrency;
  const gbatch = median(times.gbatch);
  const noSync = median(times.gbatchNoSync);
  const preIngested = peersOnly ? null : median(times.preIngested);
  const naive = median(times.naive);
  const sdk = median(times.sdk);
  const cpuS = (side) => +median(cpu[side]).toFixed(2);
  const rssMb = (side) => Math.round(median(rss[side]) / 1024);
  return {
    benchmark: 'chat-throughput',
    machine: machine(),
    rows,
    latency_ms: latencyMs,
    concurrency,
    rounds,
    ideal_s: idealMs / 1000,
    gbatch_s: gbatch / 1000,
    naive_s: naive / 1000,
    sdk_s: sdk / 1000,
    gbatch_sync_off_s: peersOnly ? null : noSync / 1000,
    gbatch_over_ideal: gbatch / idealMs,
    gbatch_over_naive: gbatch / naive,
    gbatch_over_sdk: gbatch / sdk,
    journal_sync_cost: peersOnly ? null : gbatch / noSync - 1,
    gbatch_preingested_s: peersOnly ? null : preIngested / 1000,
    preingested_over_ideal: peersOnly ? null : preIngested / idealMs,
    // CPU (user + system, s) and peak RSS (MB) of each side's process, medians.
    cpu_s: { gbatch: cpuS('gbatch'), naive: cpuS('naive'), sdk: cpuS('sdk') },
    // Where the time goes, from the simulator's ledger: the first request's arrival after the process
    // was spawned, and the request rate from 20 % to 80 % of the ideal time (2 s to 8 s; ideally C / L).
    first_request_s: phases.firstRequestS,
    steady_rps: phases.steadyRps,
    ...(traceSlots ? { slot_cycles: slotCycles } : {}),
    peak_rss_mb: { gbatch: rssMb('gbatch'), naive: rssMb('naive'), sdk: rssMb('sdk') },
    runs_s: {
      gbatch: times.gbatch.map((t) => t / 1000),
      sync_off: times.gbatchNoSync.map((t) => t / 1000),
      preingested: times.preIngested.map((t) => t / 1000),
      naive: times.naive.map((t) => t / 1000),
      sdk: times.sdk.map((t) => t / 1000),
    },
    targets: { gbatch_over_ideal: 1.1, gbatch_over_naive: 1.03, gbatch_over_sdk: 1.0, journal_sync_cost: 0.05 },
  };
}

/** One peer (`naive`: fetch, `sdk`: the `openai` SDK) over the manifest under a semaphore of `concurrency`. */
async function runPeer(peer, manifest, concurrency, env, dir) {
  const cpuFile = join(dir, `cpu-${peer}.json`);
  const rssFile = join(dir, `rss-${peer}`);
  const started = performance.now();
  const startedAtMs = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--require',
      CPU_AT_EXIT,
      '--require',
      PEAK_RSS,
      join(root, `bench/lib/${peer}-chat.mjs`),
      manifest,
      String(concurrency),
    ],
    {
      env: { ...process.env, ...env, BENCH_CPU_FILE: cpuFile, BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the ${peer} peer exited ${code}`);
  const wallMs = performance.now() - started;
  return { wallMs, startedAtMs, cpuS: cpuSeconds(cpuFile), maxRssKb: Number(readFileSync(rssFile, 'utf8')) };
}

function cpuSeconds(file) {
  const { user_us, system_us } = JSON.parse(readFileSync(file, 'utf8'));
  return (user_us + system_us) / 1e6;
}

/**
 * Per runner: median time from spawn to its first chat request, and median requests/s in the middle 60 % of the ideal
 * time.
 */
function requestPhases(requests, windows, idealMs) {
  const [from, to] = [0.2 * idealMs, 0.8 * idealMs];
  const posts = requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').map((r) => r.at);
  const firstRequestS = {};
  const steadyRps = {};
  for (const [name, runs] of Object.entries(windows)) {
    const firsts = [];
    const rates = [];
    for (const [start, end] of runs) {
      const mine = posts.filter((at) => at >= start && at <= end);
      if (mine.length === 0) continue;
      firsts.push((mine[0] - start) / 1000); // the ledger is in arrival order
      rates.push(mine.filter((at) => at - start >= from && at - start < to).length / ((to - from) / 1000));
    }
    firstRequestS[name] = median(firsts);
    steadyRps[name] = Math.round(median(rates));
  }
  return { firstRequestS, steadyRps };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await chatThroughput({
      rows: Number(flag('rows', 20_000)),
      rounds: Number(flag('rounds', 3)),
      latencyMs: Number(flag('latency-ms', 100)),
      concurrency: Number(flag('concurrency', 200)),
      peersOnly: process.argv.includes('--peers-only'),
      traceSlots: process.argv.includes('--trace-slots'),
    }),
  );
}
