// Metrics read from a journal (`gbatch serve`'s /metrics): on a 1,000,000-row SQLite job, the reads a scrape
// makes (rows by state, by kind and state; the report sums) and a whole scrape of the journal exporter, unpaced
// and paced (a dear read reused for 20 times its duration: the share of the process a scrape every 15 s takes).
// Usage: npm run build && node bench/metrics-scrape.mjs [--rows 1000000] [--rounds 3]
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chatJsonl } from './lib/manifests.mjs';
import { flag, machine, median, removeDir, report, requireBuild, root, runGbatch, tempDir } from './lib/harness.mjs';

const SCRAPE_INTERVAL_MS = 15_000;

async function timed(rounds, fn) {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return Math.round(median(times));
}

export async function metricsScrape({ rows = 1_000_000, rounds = 3 } = {}) {
  requireBuild();
  const { openQueries } = await import(join(root, 'dist/journal/open-store.js'));
  const { journalMetrics } = await import(join(root, 'dist/metrics/journal-metrics.js'));
  const dir = tempDir('metrics-scrape');
  try {
    const manifest = await chatJsonl(join(dir, 'c.jsonl'), rows);
    const state = join(dir, 'job.db');
    const ingest = await runGbatch(['run', manifest, '--ingest-only', '--state', state, '--quiet', '--json']);
    if (ingest.code !== 0) throw new Error(`ingest exited ${ingest.code}: ${ingest.stderr.slice(-400)}`);
    const db = new Database(state);
    // A campaign mid-way: one row in seven a video, 90 % of the rows answered and settled.
    db.prepare(`UPDATE items SET kind = 'video', resolution = '720p' WHERE seq % 7 = 3`).run();
    db.prepare(`UPDATE items SET state = 'downloaded', actual_usd = estimate_usd / 2 WHERE seq <= ?`).run(
      Math.floor(rows * 0.9),
    );
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const queries = await openQueries(state, { job: 'c' });
    try {
      const source = { jobs: async () => [{ job: 'c', queries }] };
      const unpaced = journalMetrics(source, { paceRatio: 0 });
      const paced = journalMetrics(source);
      const scrapeMs = await timed(rounds, () => unpaced.metrics());
      // A scrape every 15 s for four minutes against the paced exporter, on a clock that runs as the real one
      // during each read and jumps 15 s between scrapes: how long the scrapes held the process in all.
      let skipped = 0;
      const everyFifteen = journalMetrics(source, { now: () => performance.now() + skipped });
      let heldMs = 0;
      for (let scrape = 0; scrape < 16; scrape++) {
        const started = performance.now();
        await everyFifteen.metrics();
        heldMs += performance.now() - started;
        skipped += SCRAPE_INTERVAL_MS;
      }
      return {
        benchmark: 'metrics-scrape',
        rows,
        counts_ms: await timed(rounds, () => queries.counts()),
        counts_by_kind_ms: await timed(rounds, () => queries.countsByKind()),
        report_sums_ms: await timed(rounds, () => queries.reportSums()),
        scrape_ms: scrapeMs,
        paced_rescrape_ms: await (async () => {
          await paced.metrics();
          return timed(rounds, () => paced.metrics());
        })(),
        held_per_minute_ms: Math.round(heldMs / 4),
        ...machine(),
      };
    } finally {
      await queries.close();
    }
  } finally {
    removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  report(await metricsScrape({ rows: Number(flag('rows', 1_000_000)), rounds: Number(flag('rounds', 3)) }));
