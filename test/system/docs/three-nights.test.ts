// The scheduling guide's promise, over three nights: the documented crontab line (docs/scheduling.md,
// section 4) run as written through `sh -c`, night after night, against the simulator with video tasks
// that fail (refunded), a deadline that cuts the first night short, and the account's rate limit (429s).
// Nobody acts between the nights: no retry, no resolve. The third night ends exit 0 with every row
// finished, and the simulator's ledger shows no row done twice and a bill within the job file's budget.
//
// Stood in for, as in scheduling-guide.test.ts: /srv/gbatch, /usr/local/bin, the gateway, the key file and
// the webhook. At the test's time scale: the first night's `--deadline 4h30m` is `--deadline 4s`, and the
// job file polls every 0.1 s and waits 0.2 s before a retry (the guide's job file leaves both at their
// defaults, 5 s and 30 s). The rate limit's minute window is placed by the simulator's clock, which stands
// still at the window's last seconds until the night meets its 429: however long the night takes to start,
// it meets the limit, and the Retry-After it gets is short.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { startHook } from '../../helpers/webhook-server.js';
import { cronCommand, crontab, installedCronEnv, jobHome } from '../../helpers/guide.js';

const sh = promisify(execFile);

/** The simulator's limit: generous within a window, so that only the window each night starts in is met. */
const RATE_LIMIT = 300;
const WINDOW_MS = 60_000;
/** The Retry-After each night's first 429 carries: longer than night 1's deadline, so no retry beats it. */
const RETRY_AFTER_MS = 5_000;
const NIGHT_ONE_DEADLINE = '4s';
const VIDEOS = Array.from({ length: 8 }, (_, i) => `v${i + 1}`);
const CHATS = Array.from({ length: 4 }, (_, i) => `c${i + 1}`);
const videoPrompt = (id: string) => `A slow pan across scene ${id}`;
const chatPrompt = (id: string) => `Say hello number ${id}`;

test.skipIf(!BUILT)(
  'three nights of the documented crontab line: failures, a deadline and a rate limit; the third night ends exit 0 with no operator action',
  async () => {
    const ws = workspace();
    // The simulator's clock: real time shifted forward by offsetMs, or standing still at frozenAt.
    let offsetMs = 0;
    let frozenAt: number | undefined;
    const simNow = () => frozenAt ?? Date.now() + offsetMs;
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 1000, rateLimitPerMinute: RATE_LIMIT }],
      taskSeconds: 1.2,
      seed: 7,
      clock: { now: simNow },
    });
    const hook = await startHook([]);
    const campaign = [
      ...VIDEOS.map((id) => ({
        id,
        kind: 'video',
        model: 'video-mini',
        prompt: videoPrompt(id),
        resolution: '480p',
        duration: 2,
      })),
      ...CHATS.map((id) => ({ id, kind: 'chat', model: 'chat-small', prompt: chatPrompt(id), max_tokens: 16 })),
    ];
    const { home, bin, keyFile } = jobHome(ws, hook.url, campaign, { 'poll-interval': 0.1, 'retry-backoff': 0.2 });
    const job = JSON.parse(readFileSync(join(home, 'jobs', 'nightly.json'), 'utf8')) as { options: { budget: number } };
    const cron = crontab(ws.dir);
    const env = installedCronEnv(cron.env, { home, baseUrl: sim.baseUrl, keyFile, bin });
    const nightly = cron.lines.find((line) => line.command.includes('gbatch run jobs/nightly.json'));
    expect(nightly, "the guide's crontab runs jobs/nightly.json").toBeDefined();
    expect(nightly!.command).toContain('--deadline 4h30m');
    // The line logs to log/nightly-$(date +%F).log: the shell's local date, which may change during a night.
    const logDir = join(home, 'log');
    const logSizes = () =>
      new Map(
        readdirSync(logDir)
          .filter((name) => name.startsWith('nightly-'))
          .map((name) => [name, statSync(join(logDir, name)).size]),
      );

    /**
     * Stops the simulator's clock at the start of its next minute window and spends all of it but `leave`
     * requests (polls of a task no one has), then moves it on to the window's last RETRY_AFTER_MS, still
     * stopped: the night's first requests after those meet 429s with that Retry-After, however late the
     * night starts. The night's first 429 starts the clock again (the next window holds the rest of the
     * night). Forward only: the simulator's tasks in flight may only finish sooner.
     */
    const rateLimitedStart = async (leave: number): Promise<void> => {
      const windowStart = simNow() - (simNow() % WINDOW_MS) + WINDOW_MS;
      frozenAt = windowStart;
      const poll = async () =>
        (
          await fetch(`${sim.baseUrl}/video/generations/task_none`, { headers: { authorization: `Bearer ${KEY}` } })
        ).arrayBuffer();
      for (let spent = 0; spent < RATE_LIMIT - leave; spent += 50)
        await Promise.all(Array.from({ length: Math.min(50, RATE_LIMIT - leave - spent) }, poll));
      const stoppedAt = windowStart + WINDOW_MS - RETRY_AFTER_MS;
      frozenAt = stoppedAt;
      const from = sim.ledger.requests.length;
      void sim.ledger
        .reached((ledger) =>
          ledger.requests.slice(from).some((r) => r.status === 429 && !r.path.endsWith('/task_none')),
        )
        .then(() => {
          if (frozenAt !== stoppedAt) return;
          offsetMs = stoppedAt - Date.now();
          frozenAt = undefined;
        });
    };
    const night = async (command: string): Promise<{ code: number; log: string; limited: number }> => {
      const logStart = logSizes();
      const requestsBefore = sim.ledger.requests.length;
      const code = await sh(env.SHELL ?? '/bin/sh', ['-c', cronCommand(command)], { cwd: ws.dir, env }).then(
        () => 0,
        (err: { code: number }) => err.code,
      );
      const log = [...logSizes().keys()]
        .sort()
        .map((name) =>
          readFileSync(join(logDir, name))
            .subarray(logStart.get(name) ?? 0)
            .toString('utf8'),
        )
        .join('');
      const limited = sim.ledger.requests
        .slice(requestsBefore)
        .filter((r) => r.status === 429 && !r.path.endsWith('/task_none')).length;
      return { code, log, limited };
    };

    // Night 1: every video task fails, the rate limit is met at once, and the deadline (4 s) cuts the night short:
    // the 429's Retry-After (5 s) outlasts it, so the rows the limit held are not sent before it.
    sim.faults.failRate = 1;
    await rateLimitedStart(6);
    const first = await night(nightly!.command.replace('--deadline 4h30m', `--deadline ${NIGHT_ONE_DEADLINE}`));
    expect(first.limited, first.log).toBeGreaterThan(0);
    expect(first.log).toMatch(/deadline reached/);
    expect(first.code, first.log).toBe(75);

    // Night 2: the gateway is healthy again, but still rate-limited; the line as written. (A night where tasks
    // kept failing would spend their --retry-failed allowance, which spans every night: past it the operator
    // retries, as the guide says.)
    sim.faults.failRate = 0;
    await rateLimitedStart(6);
    const second = await night(nightly!.command);
    expect(second.limited, second.log).toBeGreaterThan(0);
    // Night 1's tasks failed after its deadline (seen while draining): no run of night 1 could send them
    // again; night 2 does, by itself.
    expect(second.log).toMatch(/sending \d+ item\(s\) an earlier run left failed \(refunded\)/);

    // Night 3: the line as written; no one touched the job since night 1.
    sim.faults.failRate = 0;
    await rateLimitedStart(6);
    const third = await night(nightly!.command);
    expect(third.code, third.log).toBe(0);
    expect(third.log).toMatch(/Done: every item is finished\./);

    // Every row finished, each video made once (failed tasks were refunded and sent again), each chat asked once.
    const results = readFileSync(join(home, 'out', 'nightly', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { custom_id: string; error: unknown });
    expect(results.map((r) => [r.custom_id, r.error]).sort()).toEqual(
      [...VIDEOS, ...CHATS].map((id) => [id, null]).sort(),
    );
    for (const id of VIDEOS) {
      const tasks = sim.ledger.tasks.filter((t) => t.prompt === videoPrompt(id));
      expect(
        tasks.filter((t) => t.state !== 'FAILURE').map((t) => t.state),
        id,
      ).toEqual(['SUCCESS']);
      expect(statSafe(join(home, 'out', 'nightly', `${id}.mp4`)), id).toBeGreaterThan(0);
    }
    const accepted = sim.ledger.submissionsByPrompt();
    for (const id of CHATS) expect(accepted[chatPrompt(id)], id).toBe(1);
    expect(sim.ledger.tasks.some((t) => t.state === 'FAILURE')).toBe(true);
    // The bill: within the job file's budget.
    expect(sim.ledger.chargesTotal('acct-1')).toBeLessThanOrEqual(job.options.budget);
    // The job file's webhook heard each night's end.
    expect(hook.received.filter((r) => r.body.event === 'run-ended').map((r) => r.body.exit_code)).toEqual([
      first.code,
      second.code,
      0,
    ]);
  },
  120_000,
);

function statSafe(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
