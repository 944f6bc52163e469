// Polling (issue 4): 2,000 video tasks taking 20 s each at --poll-interval 2. Poll requests per task
// vs the minimum ceil(20/2) = 10, and how late gbatch saw each task finish (target: within one interval).
// Usage: npm run build && node bench/polling.mjs [--tasks N] [--task-seconds S] [--interval S]
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { videoJsonl } from './lib/manifests.mjs';
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

export async function polling({ tasks = 2000, taskSeconds = 20, interval = 2 } = {}) {
  requireBuild();
  const dir = tempDir('poll');
  const sim = await startSim(['--task-seconds', String(taskSeconds), '--api-key', 'sk-bench=1000000']);
  try {
    const manifest = await videoJsonl(join(dir, 'v.jsonl'), tasks);
    const state = join(dir, 'p.db');
    const run = await runGbatch(
      [
        'run',
        manifest,
        '--state',
        state,
        '--out',
        join(dir, 'out'),
        '--poll-interval',
        String(interval),
        '--concurrency',
        '64',
        '--quiet',
        '--json',
      ],
      { env: { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' } },
    );
    if (run.code !== 0) throw new Error(`gbatch exited ${run.code}: ${run.stderr.slice(-400)}`);
    const ledger = await sim.ledger();
    const polls = new Map();
    for (const r of ledger.requests) {
      const m = /^\/v1\/video\/generations\/([^/]+)$/.exec(r.path);
      if (r.method === 'GET' && m) polls.set(m[1], (polls.get(m[1]) ?? 0) + 1);
    }
    const db = new Database(state, { readonly: true });
    const seen = db
      .prepare(
        `SELECT i.task_id AS task, e.at AS at FROM events e JOIN items i ON i.id = e.item_id WHERE e.event = 'finish'`,
      )
      .all();
    db.close();
    const endsAt = new Map(ledger.tasks.map((t) => [t.id, t.endsAt]));
    const lateness = seen.map((s) => (s.at - endsAt.get(s.task)) / 1000);
    const perTask = [...polls.values()];
    const minimum = Math.ceil(taskSeconds / interval);
    return {
      benchmark: 'polling',
      machine: machine(),
      tasks,
      task_seconds: taskSeconds,
      interval_s: interval,
      wall_s: run.wallMs / 1000,
      polls_total: perTask.reduce((a, b) => a + b, 0),
      polls_per_task_mean: perTask.reduce((a, b) => a + b, 0) / perTask.length,
      polls_per_task_median: median(perTask),
      polls_per_task_max: Math.max(...perTask),
      minimum_per_task: minimum,
      ratio_to_minimum: perTask.reduce((a, b) => a + b, 0) / perTask.length / minimum,
      lateness_s: { median: median(lateness), max: Math.max(...lateness) },
      all_within_one_interval: lateness.every((l) => l <= interval),
      peak_rss_mb: Math.round(run.maxRssKb / 1024),
      targets: { ratio_to_minimum: 1.15, lateness_max_s: interval },
    };
  } finally {
    await sim.stop();
    removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await polling({
      tasks: Number(flag('tasks', 2000)),
      taskSeconds: Number(flag('task-seconds', 20)),
      interval: Number(flag('interval', 2)),
    }),
  );
}
