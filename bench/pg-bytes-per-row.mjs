// Bytes written per chat row with the PostgreSQL journal (issue 11: target <= 4 KB per row). 20,000 chat
// rows against the simulator (5 ms latency, --concurrency 200), one runner on a fresh schema:
// - WAL: pg_wal_lsn_diff of pg_current_wal_lsn() after and before the run, per row. The WAL is the
//   server's: other databases writing at the time count too, so the WAL of an idle window of the same
//   server just before the run is measured and reported (background_wal_bytes_per_s);
// - pg_stat_wal (server-wide) deltas: records, full-page images, bytes; checkpoints during the run
//   (pg_stat_bgwriter);
// - the schema's tables and indexes after the run (they are created empty by the run): bytes per
//   relation (pg_relation_size) and per row, and pg_stat_user_tables' inserts, updates and HOT updates;
// - when pg_waldump and the server's pg_wal directory are readable here: the run's own WAL (the target's
//   figure, own_wal_bytes_per_row), by record type: of the records between the two positions, those that
//   touch the schema's relations and every record of the transactions that wrote them, so other sessions
//   writing on a shared server do not count.
// --analyze-after-ingest (diagnostic): the benchmark runs ANALYZE on `items` as soon as the ingest has
// committed (gbatch does not: the table has no statistics).
// --checkpoint-after-ingest: a CHECKPOINT as soon as the ingest has committed, so that the first change
// to every page of the job after it logs a full-page image: the worst case, and what a long job pays
// (a checkpoint falls between a row's ingest and its turn every checkpoint_timeout). Without it, whether
// a checkpoint falls inside the ~10 s run is chance.
// Usage: npm run build && node bench/pg-bytes-per-row.mjs [--rows N] [--latency-ms N] [--idle-ms N]
// [--analyze-after-ingest] [--checkpoint-after-ingest]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chatJsonl } from './lib/manifests.mjs';
import { flag, machine, removeDir, report, requireBuild, runGbatch, startSim, tempDir } from './lib/harness.mjs';
import { analyzeOnceIngested, createPgSchema, holdWal, onceIngested } from './lib/pg-schema.mjs';

export async function pgBytesPerRow({
  rows = 20_000,
  latencyMs = 5,
  concurrency = 200,
  idleMs = 3_000,
  analyzeAfterIngest = false,
  checkpointAfterIngest = false,
} = {}) {
  requireBuild();
  const dir = tempDir('pg-bytes');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const db = await createPgSchema('bench_pg_bytes');
  let walHold = null;
  try {
    // The run's WAL stays until pg_waldump has read it, whatever checkpoint falls meanwhile.
    walHold = await holdWal(`bench_pg_bytes_${process.pid}`);
    const idleFrom = await serverWal(db);
    await sleep(idleMs);
    const before = await serverWal(db);
    const analyze = analyzeAfterIngest ? analyzeOnceIngested(db, rows) : null;
    const checkpoint = checkpointAfterIngest ? onceIngested(db, rows, 'CHECKPOINT') : null;
    const run = await runGbatch(
      [
        'run',
        manifest,
        '--journal',
        db.url,
        '--out',
        join(dir, 'out'),
        '--concurrency',
        String(concurrency),
        '--quiet',
        '--json',
      ],
      { env },
    );
    analyze?.stop();
    await analyze?.done;
    checkpoint?.stop();
    const checkpointAfterMs = await checkpoint?.done;
    const after = await serverWal(db);
    if (run.code !== 0) throw new Error(`gbatch exited ${run.code}: ${run.stderr.slice(-500)}`);
    const walBytes = await lsnDiff(db, after.lsn, before.lsn);
    const idleWal = await lsnDiff(db, before.lsn, idleFrom.lsn);
    const relations = await relationSizes(db);
    const own = await ownWal(db, before.lsn, after.lsn, rows);
    // A backend's table counters reach the shared statistics when it ends (gbatch's have) or within 1 s.
    await sleep(1_100);
    const tables = await tableStats(db);
    const perRow = (n) => Math.round(n / rows);
    const stored = relations.reduce((n, r) => n + r.bytes, 0);
    const stat = (key) => after.stat[key] - before.stat[key];
    return {
      benchmark: 'pg-bytes-per-row',
      machine: machine(),
      analyze_after_ingest: analyzeAfterIngest,
      checkpoint_after_ingest: checkpointAfterIngest,
      checkpoint_after_ingest_at_s: checkpointAfterMs == null ? null : +(checkpointAfterMs / 1000).toFixed(2),
      rows,
      latency_ms: latencyMs,
      concurrency,
      journal_sync: 'full',
      wall_s: run.wallMs / 1000,
      journal_commits: JSON.parse(run.stdout).journal_commits ?? null,
      wal_bytes: walBytes,
      wal_bytes_per_row: perRow(walBytes),
      background_wal_bytes_per_s: Math.round(idleWal / ((before.at - idleFrom.at) / 1000)),
      wal_records: stat('wal_records'),
      wal_records_per_row: +(stat('wal_records') / rows).toFixed(1),
      wal_fpi: stat('wal_fpi'),
      wal_fpi_per_row: +(stat('wal_fpi') / rows).toFixed(2),
      pg_stat_wal_bytes_per_row: perRow(stat('wal_bytes')),
      checkpoints_during_run: stat('checkpoints'),
      own_wal_bytes_per_row: own?.bytes_per_row ?? null,
      own_wal_by_record_type_bytes_per_row: own?.by_record_type ?? null,
      own_wal_by_relation_bytes_per_row: own?.by_relation ?? null,
      stored_bytes: stored,
      stored_bytes_per_row: perRow(stored),
      relations_bytes_per_row: Object.fromEntries(relations.map((r) => [r.name, perRow(r.bytes)])),
      tables,
      // The target is bytes written (issue 11). What the tables hold after the run is reported beside it: room
      // left on each page (fillfactor 35) is what keeps a row's later versions, and so its writes, small.
      targets: { own_wal_bytes_per_row: 4096 },
      // The run's own WAL when pg_waldump could attribute it; the server's whole WAL otherwise.
      pass: (own?.bytes_per_row ?? perRow(walBytes)) <= 4096,
    };
  } finally {
    await walHold?.release();
    await db.drop();
    await sim.stop();
    removeDir(dir);
  }
}

/** The server's WAL position and its cumulative WAL and checkpoint counters. */
async function serverWal(db) {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const {
    rows: [row],
  } = await db.query(`SELECT pg_current_wal_lsn()::text AS lsn, w.wal_records::bigint AS wal_records,
    w.wal_fpi::bigint AS wal_fpi, w.wal_bytes::bigint AS wal_bytes, (b.checkpoints_timed + b.checkpoints_req)::bigint AS checkpoints
    FROM pg_stat_wal w, pg_stat_bgwriter b`);
  const stat = Object.fromEntries(
    ['wal_records', 'wal_fpi', 'wal_bytes', 'checkpoints'].map((k) => [k, Number(row[k])]),
  );
  return { lsn: row.lsn, stat, at: Date.now() };
}

async function lsnDiff(db, later, earlier) {
  const {
    rows: [row],
  } = await db.query('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint AS n', [later, earlier]);
  return Number(row.n);
}

/**
 * The WAL between two positions that is this run's, by record type: the records that touch the schema's
 * relations (tables, indexes, TOAST, sequences) and every record of a transaction that wrote one of them
 * (its commit, its catalog writes), so other databases and schemas writing on a shared server count for
 * nothing. Null when pg_waldump or the WAL files cannot be read (another host; recycled segments).
 */
async function ownWal(db, from, to, rows) {
  const {
    rows: [dirRow],
  } = await db.query('SHOW data_directory');
  const {
    rows: [verRow],
  } = await db.query('SHOW server_version_num');
  const { rows: rels } = await db.query(`WITH mine AS (
      SELECT c.oid, c.reltoastrelid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'S')),
    toast AS (SELECT reltoastrelid AS oid FROM mine WHERE reltoastrelid <> 0
      UNION SELECT i.indexrelid FROM pg_index i JOIN mine m ON i.indrelid = m.reltoastrelid)
    SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::text || '/' || pg_relation_filenode(oid)::text AS rel,
      oid::regclass::text AS name
    FROM (SELECT oid FROM mine UNION SELECT oid FROM toast) r`);
  const ours = new Map(rels.map((r) => [r.rel, r.name]));
  const bin = `/usr/lib/postgresql/${Math.floor(Number(verRow.server_version_num) / 10000)}/bin/pg_waldump`;
  const child = spawn(bin, ['-p', join(dirRow.data_directory, 'pg_wal'), '-s', from, '-e', to], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr = (stderr + d).slice(-500);
  });
  const records = [];
  const ourTx = new Set();
  // e.g. `rmgr: Heap len (rec/tot): 54/ 54, tx: 735, lsn: 0/01A2B3C8, prev 0/01A2B390, desc: LOCK off 3: ..., blkref
  // #0: rel 1663/16384/16385 blk 0`
  const head = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*\d+\/\s*(\d+), tx:\s*(\d+), lsn: \S+ prev \S+ desc: (\S+)/;
  const relRef = /rel \d+\/(\d+\/\d+)/g;
  for await (const line of createInterface({ input: child.stdout })) {
    const m = head.exec(line);
    if (!m) continue;
    const relation = [...line.matchAll(relRef)].map((r) => ours.get(r[1])).find((name) => name !== undefined);
    const touches = relation !== undefined;
    const tx = Number(m[3]);
    if (touches && tx !== 0) ourTx.add(tx);
    records.push({
      type: `${m[1]}/${m[4]}`,
      bytes: Number(m[2]),
      tx,
      touches,
      relation: relation ?? '(none: commits, catalog)',
    });
  }
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (code !== 0 || records.length === 0) {
    process.stderr.write(`pg_waldump (exit ${code}, ${records.length} records): ${stderr}\n`);
    return null;
  }
  const byType = new Map();
  const byRelation = new Map();
  let total = 0;
  for (const r of records) {
    if (!r.touches && !(r.tx !== 0 && ourTx.has(r.tx))) continue;
    total += r.bytes;
    for (const [key, map] of [
      [r.type, byType],
      [r.relation, byRelation],
    ]) {
      const t = map.get(key) ?? { n: 0, bytes: 0 };
      t.n++;
      t.bytes += r.bytes;
      map.set(key, t);
    }
  }
  const perRowOf = (map) =>
    Object.fromEntries(
      [...map]
        .filter(([, t]) => t.bytes > 0.01 * total)
        .sort((a, b) => b[1].bytes - a[1].bytes)
        .map(([key, t]) => [key, { per_row: Math.round(t.bytes / rows), records_per_row: +(t.n / rows).toFixed(2) }]),
    );
  return {
    bytes: total,
    bytes_per_row: Math.round(total / rows),
    server_records: records.length,
    by_record_type: perRowOf(byType),
    // A record is put on the first of the schema's relations it names (a split names the index's pages only).
    by_relation: perRowOf(byRelation),
  };
}

/** Every table and index of the schema (main fork + free space and visibility maps; TOAST with its table). */
async function relationSizes(db) {
  const { rows } = await db.query(`SELECT c.relname AS name, c.relkind AS kind,
      (pg_relation_size(c.oid, 'main') + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm')
       + COALESCE(CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) END, 0))::bigint AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') ORDER BY bytes DESC`);
  return rows.map((r) => ({ name: r.name, kind: r.kind, bytes: Number(r.bytes) })).filter((r) => r.bytes > 0);
}

/** Row operations per table: the updates that could not be HOT rewrote every index of the table. */
async function tableStats(db) {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await db.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del
    FROM pg_stat_user_tables WHERE schemaname = current_schema() AND n_tup_ins + n_tup_upd > 0 ORDER BY relname`);
  return Object.fromEntries(
    rows.map((r) => [
      r.relname,
      {
        ins: Number(r.n_tup_ins),
        upd: Number(r.n_tup_upd),
        hot_upd: Number(r.n_tup_hot_upd),
        del: Number(r.n_tup_del),
      },
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await pgBytesPerRow({
      rows: Number(flag('rows', 20_000)),
      latencyMs: Number(flag('latency-ms', 5)),
      idleMs: Number(flag('idle-ms', 3_000)),
      analyzeAfterIngest: process.argv.includes('--analyze-after-ingest'),
      checkpointAfterIngest: process.argv.includes('--checkpoint-after-ingest'),
    }),
  );
}
