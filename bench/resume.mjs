// Resume (issue 4): a 100,000-row journal with 90 % done; the runner restarts. Time from process
// start to the first new submission reaching the gateway. Medians of several restarts.
// Usage: npm run build && node bench/resume.mjs [--rows N] [--rounds N]
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

export async function resume({ rows = 100_000, rounds = 5 } = {}) {
  requireBuild();
  const dir = tempDir('resume');
  const sim = await startSim(['--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const firsts = [];
  try {
    const manifest = await chatJsonl(join(dir, 'c.jsonl'), rows);
    const seed = join(dir, 'seed.db');
    const ingest = await runGbatch(['run', manifest, '--ingest-only', '--state', seed, '--quiet', '--json']);
    if (ingest.code !== 0) throw new Error(`ingest exited ${ingest.code}: ${ingest.stderr.slice(-400)}`);
    const db = new Database(seed);
    // As a finished run leaves them: 90 % of the rows answered, written and settled.
    db.prepare(
      `UPDATE items SET state = 'downloaded', attempts = 1, actual_usd = estimate_usd / 2, total_tokens = 40,
      response = '{"id":"x","object":"chat.completion","choices":[]}', response_status = 200, output_path = 'out/results.jsonl'
      WHERE seq <= ?`,
    ).run(Math.floor(rows * 0.9));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    for (let round = 0; round < rounds; round++) {
      const state = join(dir, `r${round}.db`);
      copyFileSync(seed, state);
      const before = (await sim.ledger()).requests.length;
      const run = await runGbatch(
        [
          'run',
          manifest,
          '--state',
          state,
          '--out',
          join(dir, `out${round}`),
          '--concurrency',
          '64',
          '--quiet',
          '--json',
        ],
        { env },
      );
      if (run.code !== 0) throw new Error(`resume run exited ${run.code}: ${run.stderr.slice(-400)}`);
      const first = (await sim.ledger()).requests.slice(before).find((r) => r.method === 'POST');
      firsts.push(first.at - run.startedAtMs);
      for (const suffix of ['', '-wal', '-shm']) rmSync(state + suffix, { force: true });
    }
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  return {
    benchmark: 'resume',
    machine: machine(),
    rows,
    done_fraction: 0.9,
    rounds,
    time_to_first_submission_s: median(firsts) / 1000,
    runs_s: firsts.map((f) => f / 1000),
    targets: { time_to_first_submission_s: 1 },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await resume({ rows: Number(flag('rows', 100_000)), rounds: Number(flag('rounds', 5)) }));
}
