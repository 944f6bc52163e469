// `--notify`: the webhook gets the run's summary from a real local HTTP server's point of view:
// retried through its 500s, never holding the run back, never changing the exit code, never carrying
// the key or printing the URL's secret path.
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { openJournal, runJob } from '../../src/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../helpers/manifests.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace, type Workspace } from '../helpers/workspace.js';
import { startHook } from '../helpers/webhook-server.js';

function chatJob(ws: Workspace, rows = 4): string {
  return writeJsonl(
    ws.path('chats.jsonl'),
    Array.from({ length: rows }, (_, i) => chatRow(`c${i + 1}`, `Say hello number ${i + 1}`)),
  );
}

test.skipIf(!BUILT)(
  'the end-of-run summary and a reserved-budget warning reach the webhook through two 500s; the run exits as without them',
  async () => {
    const ws = workspace();
    // Tasks that run 1.5 s: the four reservations are held together long enough for a threshold check to see them.
    const sim = await startSim({ taskSeconds: 1.5 });
    const hook = await startHook([500, 500]);
    writeJsonl(
      ws.path('videos.jsonl'),
      ['Fog over a harbour', 'A fox in snow', 'Neon in the rain', 'A paper plane'].map((p, i) =>
        videoRow(`v${i + 1}`, p),
      ),
    );
    // The job file lists the webhook (a list: the option is repeatable); the budget and the early warnings (which
    // count reservations) come from the command line.
    const job = ws.path('nightly.json');
    writeFileSync(
      job,
      JSON.stringify({
        name: 'nightly',
        manifest: 'videos.jsonl',
        options: { notify: [hook.url], 'poll-interval': 0.1 },
      }),
    );
    const plan = stdoutJson(await runCli(['plan', job, '--json'], { cwd: ws.dir }));
    // All four reserved at once commit 4 / 4.8 = 83% of the budget: 80 is crossed, 100 never.
    const budget = Number((plan.max_usd * 1.2).toFixed(6));
    const started = Date.now();
    const run = await runCli(
      ['run', job, '--budget', String(budget), '--notify-reserved-at', '50,80,100', '--json', '--quiet'],
      { cwd: ws.dir, env: gatewayEnv(sim.baseUrl, KEY) },
    );
    const wall = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    expect(stdoutJson(run).exit_code).toBe(0);

    // Two 500s, then 200s: every notification arrived once the webhook came back.
    expect(hook.received.slice(0, 2).map((r) => r.answer)).toEqual([500, 500]);
    const delivered = hook.received.filter((r) => r.answer === 200).map((r) => r.body);
    const ended = delivered.filter((b) => b.event === 'run-ended');
    const thresholds = delivered.filter((b) => b.event === 'budget-reserved-threshold').map((b) => b.threshold_pct);
    expect(ended).toHaveLength(1);
    // Each threshold at most once; 80 crossed, 100 not.
    expect(Math.max(...thresholds)).toBe(80);
    expect(new Set(thresholds).size).toBe(thresholds.length);
    const body = ended[0];
    expect(body).toMatchObject({
      job: 'nightly',
      exit_code: 0,
      budget_usd: budget,
      meaning: 'Done: every item is finished.',
      attention: [],
    });
    expect(body.counts).toMatchObject({ downloaded: 4, pending: 0, failed: 0 });
    expect(body.spend_usd).toBeGreaterThan(0);
    expect(body.estimate_usd).toBeCloseTo(plan.estimated_usd, 6);
    expect(body.text).toMatch(/^gbatch nightly: exit 0: Finished: 4 downloaded\./);
    expect(body.report).toBe(`gbatch report ${job}`); // the job as the run was started: its job file
    const threshold = delivered.find((b) => b.event === 'budget-reserved-threshold' && b.threshold_pct === 80);
    expect(threshold).toMatchObject({ job: 'nightly', basis: 'reserved', exit_code: null, budget_usd: budget });
    expect(threshold.committed_pct).toBeGreaterThanOrEqual(80);
    expect(threshold.text).toContain('reserved or billed (an early warning, --notify-reserved-at)');
    // Never the key; the URL's secret path is never printed.
    expect(JSON.stringify(hook.received)).not.toContain(KEY);
    expect(run.stdout + run.stderr).not.toContain('hook-secret-token');
    expect(posts(sim.ledger)).toBe(4);
    expect(wall).toBeLessThan(20_000);
  },
  40_000,
);

test('a webhook that never answers: the run ends within the notification bound, with its own exit code, and says so in one line', async () => {
  const ws = workspace();
  const sim = await startSim();
  const hook = await startHook([], 'hang');
  const manifest = chatJob(ws, 2);
  const logs: string[] = [];
  const started = Date.now();
  const result = await runJob({
    job: manifest,
    baseUrl: sim.baseUrl,
    apiKey: KEY,
    options: { state: ws.state, out: ws.out, notify: [hook.url], 'poll-interval': 0.05 },
    notifyPolicy: { attemptTimeoutMs: 300, totalMs: 1_000 },
    onLog: (line) => logs.push(line),
  });
  const wall = Date.now() - started;
  expect(result.exitCode).toBe(0);
  expect(result.notifications).toMatchObject({ sent: 0, failed: 1 });
  expect(hook.received.length).toBeGreaterThanOrEqual(2); // tried again after the first attempt timed out
  expect(wall).toBeLessThan(5_000);
  const line = logs.filter((l) => l.startsWith('notification'));
  expect(line).toEqual([
    expect.stringMatching(
      /^notification \(run-ended\) to http:\/\/127\.0\.0\.1:\d+\/… not delivered: .*; the run is not affected$/,
    ),
  ]);
});

test.skipIf(!BUILT)(
  'a --notify that is not http(s) is refused before anything is sent (exit 2, one line, the URL not repeated)',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = chatJob(ws, 1);
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--notify', 'ftp://files.example/secret-path'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'gbatch run: Expected --notify to be an http(s) URL, got a ftp: URL (--notify number 1)',
    ]);
    expect(posts(sim.ledger)).toBe(0);
  },
);

test('a run refused because another runner holds the journal still notifies (exit 73, the reason); the saved options show the webhook only as scheme://host/…', async () => {
  const ws = workspace();
  const sim = await startSim({ taskSeconds: 30 });
  const hook = await startHook([]);
  const manifest = writeJsonl(ws.path('videos.jsonl'), [videoRow('v1', 'A slow sunrise')]);
  const stop = new AbortController();
  const force = new AbortController();
  const base = { job: manifest, baseUrl: sim.baseUrl, apiKey: KEY, env: {} };
  const first = runJob({
    ...base,
    options: { state: ws.state, out: ws.out, 'poll-interval': 0.05, 'deadline-grace': 0 },
    signal: stop.signal,
    forceSignal: force.signal,
  });
  await sim.ledger.reached((ledger) => posts(ledger) === 1);
  const second = await runJob({ ...base, options: { state: ws.state, out: ws.out, notify: [hook.url] } }).then(
    () => 'finished',
    (err: Error) => err.name,
  );
  expect(second).toBe('JournalBusyError');
  expect(hook.received).toHaveLength(1);
  expect(hook.received[0]!.body).toMatchObject({
    event: 'run-ended',
    exit_code: 73,
    meaning: expect.stringMatching(/^Refused: .*nothing was sent\.$/),
  });
  stop.abort('SIGTERM');
  force.abort('SIGTERM');
  expect((await first).exitCode).toBe(75);

  const journal = await openJournal({ job: manifest, options: { state: ws.state } });
  try {
    const third = await runJob({
      ...base,
      options: { state: ws.state, out: ws.out, notify: [hook.url], 'no-wait': true },
    });
    expect(third.exitCode).toBe(75);
    expect((await journal.jobRecord())!.options.notify).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/…$/),
    ]);
  } finally {
    await journal.close();
  }
});
