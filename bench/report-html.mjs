// The HTML report at scale (issue 12): a 100,000-row chat job run against the simulator, then
// `report --format html` timed against its peer, `report --format csv` of the same journal (the same
// walk over the items, with no timeline and no charts). The page must be written in under 10 s and
// stay under 5 MB (the first 2,000 rows inline, the rest pointed at the CSV). Medians of several runs; wall
// and CPU time (user + system) of each.
// Usage: npm run build && node bench/report-html.mjs [--rows N] [--rounds N]
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { runGbatchWithCpu } from './lib/cpu-of-run.mjs';
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

export async function reportHtml({ rows = 100_000, rounds = 3 } = {}) {
  requireBuild();
  const dir = tempDir('report-html');
  const sim = await startSim(['--api-key', 'sk-bench=1000000', '--rate-limit', '60000', '--error-rate', '0.002']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const state = join(dir, 'job.db');
  const times = { html: [], csv: [] };
  const cpu = { html: [], csv: [] };
  const rss = { html: [], csv: [] };
  const sizes = {};
  let runMs;
  try {
    const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
    const run = await runGbatch(
      [
        'run',
        manifest,
        '--state',
        state,
        '--out',
        join(dir, 'out'),
        '--concurrency',
        '64',
        '--journal-sync',
        'off',
        '--quiet',
        '--json',
      ],
      { env },
    );
    if (run.code !== 0) throw new Error(`run exited ${run.code}: ${run.stderr.slice(-400)}`);
    runMs = run.wallMs;
    for (let round = 0; round < rounds; round++) {
      for (const format of ['html', 'csv']) {
        const output = join(dir, `report.${format}`);
        const written = await runGbatchWithCpu(['report', '--state', state, '--format', format, '--output', output]);
        if (written.code !== 0)
          throw new Error(`report --format ${format} exited ${written.code}: ${written.stderr.slice(-400)}`);
        times[format].push(written.wallMs);
        rss[format].push(written.maxRssKb);
        cpu[format].push(written.cpuS);
        sizes[format] = statSync(output).size;
      }
    }
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const html = median(times.html);
  return {
    name: 'report-html',
    rows,
    run_s: +(runMs / 1000).toFixed(1),
    html_ms: Math.round(html),
    csv_ms: Math.round(median(times.csv)),
    html_vs_csv: +(html / median(times.csv)).toFixed(2),
    // On a shared host the wall time waits for other processes: the CPU time is what the report costs.
    html_cpu_s: +median(cpu.html).toFixed(2),
    csv_cpu_s: +median(cpu.csv).toFixed(2),
    html_mb: +(sizes.html / 1e6).toFixed(2),
    csv_mb: +(sizes.csv / 1e6).toFixed(2),
    html_rss_mb: Math.round(median(rss.html) / 1024),
    csv_rss_mb: Math.round(median(rss.csv) / 1024),
    within_10s: html < 10_000,
    within_5mb: sizes.html < 5e6,
    machine: machine(),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await reportHtml({ rows: Number(flag('rows', 100_000)), rounds: Number(flag('rounds', 3)) }));
}
