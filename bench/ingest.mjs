// Ingest (issue 4): 1,000,000-row JSONL and CSV manifests through `plan` (validate + estimate) and
// into the journal (`run --ingest-only`). Rows/s and peak RSS, medians of several rounds.
// Usage: npm run build && node bench/ingest.mjs [--rows N] [--rounds N]
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { chatCsv, chatJsonl } from './lib/manifests.mjs';
import { flag, machine, median, removeDir, report, requireBuild, runGbatch, tempDir } from './lib/harness.mjs';

export async function ingest({ rows = 1_000_000, rounds = 3 } = {}) {
  requireBuild();
  const dir = tempDir('ingest');
  const results = {};
  try {
    const manifests = {
      jsonl: await chatJsonl(join(dir, 'm.jsonl'), rows),
      csv: await chatCsv(join(dir, 'm.csv'), rows),
    };
    for (const [format, manifest] of Object.entries(manifests)) {
      for (const step of ['plan', 'journal']) {
        const walls = [];
        const rss = [];
        for (let round = 0; round < rounds; round++) {
          const state = join(dir, `${format}.db`);
          for (const suffix of ['', '-wal', '-shm']) rmSync(state + suffix, { force: true });
          const args =
            step === 'plan'
              ? ['plan', manifest, '--json']
              : ['run', manifest, '--ingest-only', '--state', state, '--json', '--quiet'];
          const run = await runGbatch(args);
          if (run.code !== 0) throw new Error(`${step} ${format} exited ${run.code}: ${run.stderr.slice(-400)}`);
          walls.push(run.wallMs);
          rss.push(run.maxRssKb);
        }
        const wall = median(walls);
        results[`${step}_${format}`] = {
          rows_per_s: Math.round(rows / (wall / 1000)),
          wall_s: wall / 1000,
          peak_rss_mb: Math.round(median(rss) / 1024),
          runs_s: walls.map((w) => w / 1000),
        };
      }
    }
  } finally {
    removeDir(dir);
  }
  return {
    benchmark: 'ingest',
    machine: machine(),
    rows,
    rounds,
    results,
    targets: { rows_per_s: 100_000, peak_rss_mb: 300 },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await ingest({ rows: Number(flag('rows', 1_000_000)), rounds: Number(flag('rounds', 3)) }));
}
