// A dashboard's and `status`'s reads on a 1,000,000-row SQLite journal (issue 23): they read the journal's summaries
// and pages, never whole tables. On the journal bench/lib/million-journal.mjs makes (chat and video rows, ~3.2M
// events, mixed states, settled money; cached under bench/cache/): `gbatch status` and `status --json` (wall, and the
// bytes the process wrote: SQLite's temp files, when a sort spills, show there), `report --format json` (wall, CPU,
// peak RSS), the journal's row pages by each filter and its facets in process, and `run --ingest-only` of the same
// 1M rows into a fresh journal (with `--other <checkout>`: alternating with another build, as ab-ingest does).
// `gbatch --version` is timed beside status: the floor of any command's start on this host.
// Usage: npm run build && node bench/summaries.mjs [--rows 1000000] [--rounds 5] [--other DIR] [--skip-ingest]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runGbatchWithCpu } from './lib/cpu-of-run.mjs';
import { flag, machine, median, removeDir, report, requireBuild, root, runGbatch, tempDir } from './lib/harness.mjs';
import { millionJournal } from './lib/million-journal.mjs';

const IO_AT_EXIT = join(root, 'bench/lib/io-at-exit.cjs');
const CPU_AT_EXIT = join(root, 'bench/lib/cpu-at-exit.cjs');

/**
 * Runs a command with SQLite's temp files pointed at a watched directory: `tempFiles` counts those it created (a
 * sort or a temporary B-tree that spilled; SQLite unlinks them at once, inotify still sees them).
 */
async function timedCommand(args, dir) {
  const ioFile = join(dir, 'io.json');
  rmSync(ioFile, { force: true });
  const tmp = join(dir, 'sqlite-tmp');
  mkdirSync(tmp, { recursive: true });
  const created = new Set();
  const watcher = watch(tmp, (_event, name) => created.add(name));
  const run = await runGbatch(args, {
    env: { BENCH_IO_FILE: ioFile, SQLITE_TMPDIR: tmp },
    nodeArgs: ['--require', IO_AT_EXIT],
  }).finally(() => watcher.close());
  if (run.code !== 0 && !args.includes('status'))
    throw new Error(`${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  const io = JSON.parse(readFileSync(ioFile, 'utf8'));
  return {
    ms: run.wallMs,
    writeBytes: io.write_bytes,
    cancelledBytes: io.cancelled_write_bytes,
    tempFiles: created.size,
  };
}

/** Each query's median time (ms) over `rounds`, in this process, on the journal opened read-only. */
async function pageTimes(file, rounds) {
  const { SqliteJournal } = await import(pathToFileURL(join(root, 'dist/journal/sqlite/journal.js')).href);
  const journal = SqliteJournal.open(file, { readonly: true });
  const queries = {
    'page (no filter)': () => journal.rowPage({ limit: 100 }),
    'page state=uncertain': () => journal.rowPage({ states: ['uncertain'], limit: 100 }),
    'page state=downloaded, after row 500k': () =>
      journal.rowPage({ states: ['downloaded'], afterSeq: 500_000, limit: 100 }),
    'page kind=video': () => journal.rowPage({ kinds: ['video'], limit: 100 }),
    'page model=chat-large': () => journal.rowPage({ model: 'chat-large', limit: 100 }),
    'page model=video-pro (0.1%)': () => journal.rowPage({ model: 'video-pro', limit: 100 }),
    'page model=video-pro-2.5 (10 rows)': () => journal.rowPage({ model: 'video-pro-2.5', limit: 100 }),
    'page error=rate_limited': () => journal.rowPage({ errorCode: 'rate_limited', limit: 100 }),
    'page error=content_policy (rare)': () => journal.rowPage({ errorCode: 'content_policy', limit: 100 }),
    'page error=budget_exceeded, kind=chat': () =>
      journal.rowPage({ errorCode: 'budget_exceeded', kinds: ['chat'], limit: 100 }),
    'page id prefix row-99999': () => journal.rowPage({ idPrefix: 'row-99999', limit: 100 }),
    'page id prefix row-': () => journal.rowPage({ idPrefix: 'row-', limit: 100 }),
    'page last 100 rows': () => journal.rowPage({ afterSeq: 999_900, limit: 500 }),
    rowFacets: () => journal.rowFacets(),
    activity: () => journal.activity(),
    counts: () => journal.counts(),
    reportSums: () => journal.reportSums(),
    videoTaskTimes: () => journal.videoTaskTimes(),
  };
  const ms = {};
  const rows = {};
  try {
    for (const [name, query] of Object.entries(queries)) {
      const times = [];
      for (let r = 0; r < rounds; r++) {
        const t = performance.now();
        const result = await query();
        times.push(performance.now() - t);
        if (Array.isArray(result)) rows[name] = result.length;
      }
      ms[name] = +median(times).toFixed(2);
    }
  } finally {
    await journal.close();
  }
  return { ms, rows };
}

/**
 * `run --ingest-only` of the journal's manifest into a fresh journal, by this build and (alternating) another: wall
 * and CPU seconds (on a busy host the CPU time compares two builds better).
 */
function ingestTimes(manifest, rounds, other, dir) {
  const seconds = { this: [], other: [] };
  const cpu = { this: [], other: [] };
  const cpuFile = join(dir, 'cpu.json');
  const sides = other ? ['this', 'other'] : ['this'];
  for (let r = 0; r < rounds; r++)
    for (const side of r % 2 ? [...sides].reverse() : sides) {
      const state = join(dir, `${side}.db`);
      for (const x of ['', '-wal', '-shm']) rmSync(state + x, { force: true });
      const t = performance.now();
      const run = spawnSync(
        process.execPath,
        [
          '--require',
          CPU_AT_EXIT,
          join(side === 'this' ? root : other, 'bin/gbatch.js'),
          'run',
          manifest,
          '--ingest-only',
          '--state',
          state,
          '--quiet',
          '--json',
        ],
        { env: { ...process.env, BENCH_CPU_FILE: cpuFile } },
      );
      if (run.status !== 0) throw new Error(String(run.stderr));
      seconds[side].push(+((performance.now() - t) / 1000).toFixed(2));
      const used = JSON.parse(readFileSync(cpuFile, 'utf8'));
      cpu[side].push(+((used.user_us + used.system_us) / 1e6).toFixed(2));
    }
  return { seconds, cpu };
}

export async function summaries({ rows = 1_000_000, rounds = 5, other, ingest = true } = {}) {
  requireBuild();
  const dir = tempDir('summaries');
  const cached = await millionJournal({ rows });
  // A copy: a command that opens the journal writable must not change the cached one.
  const file = join(dir, 'job.db');
  copyFileSync(cached, file);
  const out = {};
  try {
    const times = { status: [], json: [], version: [] };
    let written = 0;
    let cancelled = 0;
    let tempFiles = 0;
    for (let r = 0; r < rounds; r++) {
      times.version.push((await timedCommand(['--version'], dir)).ms);
      for (const [key, args] of [
        ['status', ['status', '--state', file]],
        ['json', ['status', '--json', '--state', file]],
      ]) {
        const run = await timedCommand(args, dir);
        times[key].push(run.ms);
        written = Math.max(written, run.writeBytes);
        cancelled = Math.max(cancelled, run.cancelledBytes);
        tempFiles += run.tempFiles;
      }
    }
    out.status_ms = Math.round(median(times.status));
    out.status_json_ms = Math.round(median(times.json));
    out.startup_ms = Math.round(median(times.version));
    out.status_write_bytes_max = written;
    out.status_cancelled_write_bytes_max = cancelled;
    out.status_sqlite_temp_files = tempFiles;

    const report = { ms: [], cpu: [], rss: [] };
    for (let r = 0; r < Math.min(rounds, 2); r++) {
      const run = await runGbatchWithCpu([
        'report',
        '--state',
        file,
        '--format',
        'json',
        '--output',
        join(dir, 'r.json'),
      ]);
      if (run.code !== 0) throw new Error(`report exited ${run.code}: ${run.stderr.slice(-400)}`);
      report.ms.push(run.wallMs);
      report.cpu.push(run.cpuS);
      report.rss.push(run.maxRssKb);
    }
    out.report_json_s = +(median(report.ms) / 1000).toFixed(2);
    out.report_json_cpu_s = +median(report.cpu).toFixed(2);
    out.report_json_rss_mb = Math.round(median(report.rss) / 1024);

    const pages = await pageTimes(file, rounds);
    out.query_ms = pages.ms;
    out.query_rows = pages.rows;
    out.slowest_page_ms = Math.max(
      ...Object.entries(pages.ms)
        .filter(([k]) => k.startsWith('page'))
        .map(([, v]) => v),
    );

    if (ingest) {
      const { seconds, cpu } = ingestTimes(
        join(root, `bench/cache/rows-${rows}.jsonl`),
        Math.min(rounds, 3),
        other,
        dir,
      );
      out.ingest_s = seconds;
      out.ingest_cpu_s = cpu;
      out.ingest_rows_per_s = Math.round(rows / median(seconds.this));
      if (other) {
        out.ingest_vs_other = +(median(seconds.this) / median(seconds.other)).toFixed(3);
        out.ingest_cpu_vs_other = +(median(cpu.this) / median(cpu.other)).toFixed(3);
      }
    }
  } finally {
    removeDir(dir);
  }
  return {
    benchmark: 'summaries',
    rows,
    ...out,
    status_within_200ms: out.status_ms < 200 && out.status_json_ms < 200,
    status_no_temp_files: out.status_sqlite_temp_files === 0,
    report_within_10s: out.report_json_s < 10,
    pages_within_50ms: out.slowest_page_ms < 50,
    load_1m: +readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
    machine: machine(),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await summaries({
      rows: Number(flag('rows', 1_000_000)),
      rounds: Number(flag('rounds', 5)),
      other: flag('other', undefined),
      ingest: !process.argv.includes('--skip-ingest'),
    }),
  );
}
