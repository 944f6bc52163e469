// Bytes written per chat row (issue 11 groundwork: target <= 4 KB per row). 20,000 chat rows against
// the simulator (5 ms latency, --concurrency 200). Two runs of the same manifest on fresh journals:
// 1. measured: /proc/self/io of the gbatch process at exit (write_bytes: what it dirtied towards the
//    disk, every thread including SQLite's), the .db and peak -wal sizes (the WAL polled every 10 ms),
//    the journal's page size and commits;
// 2. split (when strace is installed): the same run under `strace -f`, every write()/pwrite() summed by
//    the file it went to: the .db (checkpoints), the -wal (frames: one page + a 24-byte header), the
// results.jsonl writes (kernel copies by copy_file_range included), other files. strace slows the process, so group
// commits batch differently:
//    its figures say where the bytes go, run 1 says how many.
// Usage: npm run build && node bench/bytes-per-row.mjs [--rows N] [--latency-ms N] [--journal-sync full|off]
// [--no-split]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chatJsonl } from './lib/manifests.mjs';
import { flag, machine, removeDir, report, requireBuild, root, runGbatch, startSim, tempDir } from './lib/harness.mjs';

const IO_AT_EXIT = join(root, 'bench/lib/io-at-exit.cjs');
/** Issue 11: at most 4 KB written to disk per chat row. */
export const TARGET_WRITE_BYTES_PER_ROW = 4096;

export async function bytesPerRow({
  rows = 20_000,
  latencyMs = 5,
  concurrency = 200,
  sync = 'full',
  split = true,
} = {}) {
  requireBuild();
  const dir = tempDir('bytes');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const args = (name) => [
    'run',
    manifest,
    '--state',
    join(dir, `${name}.db`),
    '--out',
    join(dir, `out-${name}`),
    '--concurrency',
    String(concurrency),
    '--journal-sync',
    sync,
    '--quiet',
    '--json',
  ];
  try {
    const measured = await measuredRun(dir, args('measured'), env);
    const perRow = (n) => (n == null ? null : Math.round(n / rows));
    const result = {
      benchmark: 'bytes-per-row',
      machine: machine(),
      rows,
      latency_ms: latencyMs,
      concurrency,
      journal_sync: sync,
      wall_s: measured.wallMs / 1000,
      write_bytes: measured.io?.write_bytes ?? null,
      write_bytes_per_row: perRow(measured.io?.write_bytes),
      wchar_per_row: perRow(measured.io?.wchar),
      ...measured.journal,
      db_bytes_per_row: perRow(measured.journal.db_bytes),
      split: null,
      targets: { write_bytes_per_row: TARGET_WRITE_BYTES_PER_ROW },
      pass: measured.io ? measured.io.write_bytes / rows <= TARGET_WRITE_BYTES_PER_ROW : null,
    };
    if (split && hasStrace()) result.split = await splitRun(dir, args('split'), env, rows);
    return result;
  } finally {
    await sim.stop();
    removeDir(dir);
  }
}

async function measuredRun(dir, args, env) {
  const ioFile = join(dir, 'io.json');
  const wal = `${args[3]}-wal`;
  let peakWal = 0;
  const poll = setInterval(() => {
    try {
      peakWal = Math.max(peakWal, statSync(wal).size);
    } catch {
      // not created yet, or removed at close
    }
  }, 10);
  let run;
  try {
    run = await runGbatch(args, { env: { ...env, BENCH_IO_FILE: ioFile }, nodeArgs: ['--require', IO_AT_EXIT] });
  } finally {
    clearInterval(poll);
  }
  if (run.code !== 0) throw new Error(`gbatch exited ${run.code}: ${run.stderr.slice(-500)}`);
  const io = existsSync(ioFile) ? JSON.parse(readFileSync(ioFile, 'utf8')) : null;
  return { wallMs: run.wallMs, io, journal: journalFacts(args[3], wal, peakWal, JSON.parse(run.stdout)) };
}

/** The journal after the run: sizes, page size, commits, and which tables and indexes hold the pages. */
function journalFacts(file, wal, peakWal, summary) {
  const finalWal = existsSync(wal) ? statSync(wal).size : 0;
  const db = new Database(file, { readonly: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true });
    const pages = db
      .prepare('SELECT name, count(*) AS pages, sum(payload) AS payload FROM dbstat GROUP BY name ORDER BY pages DESC')
      .all();
    // The item row's widest columns (average bytes per row): what a smaller row would drop.
    const columns = db
      .prepare("SELECT name FROM pragma_table_info('items')")
      .all()
      .map((c) => c.name);
    const widths = db
      .prepare(`SELECT ${columns.map((c) => `avg(length("${c}")) AS "${c}"`).join(', ')} FROM items`)
      .get();
    const wide = Object.entries(widths)
      .filter(([, v]) => v >= 16)
      .sort((a, b) => b[1] - a[1]);
    return {
      db_bytes: statSync(file).size,
      wal_peak_bytes: peakWal,
      wal_final_bytes: finalWal,
      page_size: pageSize,
      page_count: db.pragma('page_count', { simple: true }),
      journal_commits: summary.journal_commits ?? null,
      pages_by_object: Object.fromEntries(pages.map((p) => [p.name, p.pages])),
      payload_bytes_by_object: Object.fromEntries(pages.map((p) => [p.name, p.payload])),
      item_widest_columns_avg_bytes: Object.fromEntries(wide.map(([k, v]) => [k, Math.round(v)])),
    };
  } finally {
    db.close();
  }
}

function hasStrace() {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** The same run under strace: bytes written per destination file, WAL frames and checkpointed pages. */
async function splitRun(dir, args, env, rows) {
  const trace = join(dir, 'strace.txt');
  const child = spawn(
    'strace',
    [
      '-f',
      '-qq',
      '-y',
      '-s',
      '0',
      '-e',
      'signal=none',
      '-o',
      trace,
      '-e',
      'trace=write,pwrite64,writev,pwritev,pwritev2,copy_file_range',
      process.execPath,
      join(root, 'bin/gbatch.js'),
      ...args,
    ],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`gbatch under strace exited ${code}: ${stderr.slice(-500)}`);
  const dbFile = args[3];
  const bytes = { db: 0, wal: 0, shm: 0, results_jsonl: 0, other_files: 0, sockets_and_pipes: 0 };
  let walFrames = 0;
  let walOtherWrites = 0;
  let dbPageWrites = 0;
  const pageSize = new Database(dbFile, { readonly: true }).pragma('page_size', { simple: true });
  // e.g. `123 pwrite64(21</tmp/x/split.db-wal>, ""..., 4096, 8192) = 4096`
  const line = /^\d+\s+(\w+)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)$/;
  // copy_file_range(in<path>, [off], out<path>, ...): the bytes land in the second file (a kernel copy).
  const copy = /^\d+\s+copy_file_range\(\d+<[^>]*>, [^,]*, \d+<([^>]*)>.*\)\s+=\s+(\d+)$/;
  for (const text of readFileSync(trace, 'utf8').split('\n')) {
    const c = copy.exec(text);
    const m = c ? [text, 'copy_file_range', c[1], c[2]] : line.exec(text);
    if (!m) continue;
    const [, , target, written] = m;
    const n = Number(written);
    if (target === `${dbFile}-wal`) {
      bytes.wal += n;
      if (n === pageSize) walFrames++;
      else if (n !== 24 && n !== 32) walOtherWrites++;
    } else if (target === dbFile) {
      bytes.db += n;
      if (n === pageSize) dbPageWrites++;
    } else if (target === `${dbFile}-shm`) bytes.shm += n;
    else if (/results\.jsonl/.test(target)) bytes.results_jsonl += n;
    else if (target.startsWith('/')) bytes.other_files += n;
    else bytes.sockets_and_pipes += n;
  }
  const commits = JSON.parse(stdout).journal_commits ?? null;
  const perRow = Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, Math.round(v / rows)]));
  return {
    note: 'under strace (slower, so commits batch differently); bytes passed to write calls, per destination',
    journal_commits: commits,
    bytes,
    bytes_per_row: perRow,
    journal_bytes_per_row: Math.round((bytes.db + bytes.wal) / rows),
    wal_frames: walFrames,
    wal_frames_per_commit: commits ? +(walFrames / commits).toFixed(1) : null,
    wal_other_writes: walOtherWrites,
    db_page_writes_at_checkpoint: dbPageWrites,
    whole_page_bytes_share: +(((walFrames + dbPageWrites) * pageSize) / Math.max(1, bytes.db + bytes.wal)).toFixed(3),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = report(
    await bytesPerRow({
      rows: Number(flag('rows', 20_000)),
      latencyMs: Number(flag('latency-ms', 5)),
      sync: flag('journal-sync', 'full'),
      split: !process.argv.includes('--no-split'),
    }),
  );
  const verdict = result.pass === null ? 'NO FIGURE (no /proc/self/io)' : result.pass ? 'PASS' : 'FAIL';
  process.stderr.write(
    `bytes-per-row: ${verdict}: ${result.write_bytes_per_row} B written per row, target <= ${TARGET_WRITE_BYTES_PER_ROW} B\n`,
  );
  if (result.pass === false) process.exitCode = 1;
}
