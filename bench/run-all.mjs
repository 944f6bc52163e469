// `npm run bench`: every benchmark in turn (or `npm run bench -- chat ingest`), one JSON line each,
// then a summary table. Results also go to bench/results/latest.json (not committed).
import { mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bytesPerRow } from './bytes-per-row.mjs';
import { chatThroughput } from './chat-throughput.mjs';
import { download } from './download.mjs';
import { ingest } from './ingest.mjs';
import { machine, report, root } from './lib/harness.mjs';
import { metricsScrape } from './metrics-scrape.mjs';
import { pgBytesPerRow } from './pg-bytes-per-row.mjs';
import { pgCeiling } from './pg-ceiling.mjs';
import { pgIngest } from './pg-ingest.mjs';
import { pgScaling } from './pg-scaling.mjs';
import { pgVsSqlite } from './pg-vs-sqlite.mjs';
import { polling } from './polling.mjs';
import { reportCampaign } from './report-campaign.mjs';
import { reportHtml } from './report-html.mjs';
import { resume } from './resume.mjs';
import { serveChat } from './serve-chat.mjs';
import { serveStall } from './serve-stall.mjs';
import { startLatency } from './start-latency.mjs';
import { summaries } from './summaries.mjs';
import { uiDashboard } from './ui-dashboard.mjs';

const ALL = {
  simulator: async () => {
    const run = spawnSync(process.execPath, [join(root, 'bench/simulator.mjs')], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout.trim().split('\n').pop());
  },
  chat: () => chatThroughput(),
  ingest: () => ingest(),
  polling: () => polling(),
  download: () => download(),
  resume: () => resume(),
  // `gbatch serve` (issue 22): 10,000 chat rows through the Batch API against `run` and the naive loop.
  serve: () => serveChat(),
  // serve's other clients while a 50,000-line batch is checked and loaded: p99 of GET /v1/batches/{id}.
  'serve-stall': () => serveStall(),
  bytes: () => bytesPerRow(),
  // The HTML report (issue 12): 100,000 rows against its csv peer; a 2,300-row mixed campaign with faults.
  'report-html': () => reportHtml(),
  'report-campaign': () => reportCampaign(),
  // Metrics read from a journal (issue 23): a 1,000,000-row job scraped, unpaced and paced.
  'metrics-scrape': () => metricsScrape(),
  // The live view (issue 12): a transition taken in, a frame drawn and written, at 100,000 rows (CPU per frame).
  // Summaries (issue 23): status, report json, row pages and ingest on a cached 1,000,000-row journal.
  summaries: () => summaries(),
  // gbatch ui (issue 23): every page of a 1,000,000-row job, against 200 ms.
  'ui-dashboard': () => uiDashboard(),
  'live-frame': async () => {
    const run = spawnSync(process.execPath, [join(root, 'bench/live-frame.mjs')], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return { benchmark: 'live-frame', ...JSON.parse(run.stdout.split('\n')[0]) };
  },
  // PostgreSQL journal and many runners (issue 11): need the server of GBATCH_BENCH_PG_URL (default
  // 127.0.0.1:5432/test).
  scaling: () => pgScaling(),
  'pg-vs-sqlite': () => pgVsSqlite(),
  'pg-ingest': () => pgIngest(),
  'pg-bytes': () => pgBytesPerRow(),
  // One PostgreSQL journal's ceiling (issue 35): runners on a zero-latency gateway, the job's own sessions' cost.
  'pg-ceiling': () => pgCeiling(),
  // Spawn to first request of one and of ten runners at once (issue 35), in wall time and CPU.
  'start-latency': () => startLatency(),
};

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length > 0 ? chosen : Object.keys(ALL);
const results = [];
for (const name of names) {
  const bench = ALL[name];
  if (!bench) {
    console.error(`unknown benchmark '${name}'; one of ${Object.keys(ALL).join(', ')}`);
    process.exit(2);
  }
  console.error(`[bench] ${name} ...`);
  results.push(report(await bench()));
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  join(root, 'bench/results/latest.json'),
  `${JSON.stringify({ at: new Date().toISOString(), machine: machine(), results }, null, 2)}\n`,
);
console.error('[bench] wrote bench/results/latest.json');
