// Issue 13: `run --if-running wait|skip|fail` when last night's run is still going. A real live runner
// holds the job (a video task that takes seconds): `fail` (the default) exits 73, `skip` exits 5, both
// sending nothing; `wait` waits for the first run to end and then does the job, or gives up at its bound
// (73). On PostgreSQL, where runners share a job by design, an explicit `skip` sees the live runner too.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

async function liveRunner(taskSeconds: number, journal?: string[]) {
  const ws = workspace();
  const sim = await startSim({ taskSeconds });
  const env = { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_IF_RUNNING_POLL_MS: '50' };
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A slow nightly sunrise')]);
  const where = journal ?? ['--state', ws.state];
  const args = ['run', manifest, ...where, '--out', ws.out, '--poll-interval', '0.05', '--quiet'];
  const first = startCli(args, { env });
  await sim.ledger.reached((ledger) => posts(ledger) === 1);
  return { ws, sim, env, args, first };
}

test.skipIf(!BUILT)(
  'fail (the default) exits 73 and skip exits 5, neither sending; wait gives up at its bound or the deadline with 73',
  async () => {
    const { sim, env, args, first } = await liveRunner(30);
    try {
      const [failed, failedExplicit, skipped, timedOut, deadline] = await Promise.all([
        runCli(args, { env }),
        runCli([...args, '--if-running', 'fail'], { env }),
        runCli([...args, '--if-running', 'skip', '--json'], { env }),
        runCli([...args, '--if-running', 'wait', '--if-running-timeout', '0.3', '--json'], { env }),
        runCli([...args, '--if-running', 'wait', '--deadline', '0.4s'], { env }),
      ]);
      for (const busy of [failed, failedExplicit]) {
        expect(busy.code, busy.stderr).toBe(73);
        expect(busy.stderr).toMatch(
          new RegExp(`another gbatch run \\(pid ${first.child.pid} on .+\\) is using this journal`),
        );
      }
      expect(skipped.code, skipped.stderr).toBe(5);
      expect(skipped.stderr).toMatch(
        new RegExp(
          `^gbatch run: skipped: the gbatch run pid ${first.child.pid} on .+ is still running this job \\(--if-running skip\\); nothing was done`,
        ),
      );
      // --json still answers with one document when the run ended before it began.
      expect(JSON.parse(skipped.stdout)).toMatchObject({
        exit_code: 5,
        counts: null,
        error: expect.stringMatching(/^skipped: .*--if-running skip/),
      });
      expect(JSON.parse(timedOut.stdout)).toMatchObject({
        exit_code: 73,
        counts: null,
        reason: expect.stringMatching(/^Refused: .*still holds this job/),
      });
      expect(failed.stdout).toBe('');
      expect(timedOut.code, timedOut.stderr).toBe(73);
      expect(timedOut.stderr).toMatch(/waiting for it to end \(--if-running wait, up to /);
      expect(timedOut.stderr).toMatch(
        new RegExp(
          `the gbatch run pid ${first.child.pid} on .+ still holds this job after waiting 0 s \\(--if-running-timeout\\); nothing was done`,
        ),
      );
      expect(deadline.code, deadline.stderr).toBe(73);
      // The deadline said plainly at start: local time with its offset, how far off, and UTC.
      expect(deadline.stderr).toMatch(
        /^\[gbatch\] deadline: \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? [+-]\d\d:\d\d \(in 1s; \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m,
      );
      expect(deadline.stderr).toMatch(/still holds this job after waiting \d+ s \(the --deadline came first\)/);
      expect(posts(sim.ledger)).toBe(1);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect((await first.result).code).toBe(75);
  },
);

/**
 * `--if-running wait` against a live first runner: the second takes the job once the first ends (SIGTERM), sending
 * nothing twice.
 */
async function secondWaitsForFirst(journal?: string[]) {
  const { ws, sim, env, args, first } = await liveRunner(30, journal);
  // --no-wait: once it holds the job, the second run has nothing to send and leaves the task to a later run.
  const second = startCli([...args, '--if-running', 'wait', '--no-wait', '--json'], { env });
  await second.stderrMatching(/waiting for it to end \(--if-running wait, up to /);
  first.child.kill('SIGTERM');
  expect((await first.result).code).toBe(75);
  const firstEndedAt = Date.now();
  const ended = await second.result;
  expect(ended.code, ended.stderr).toBe(75);
  expect(Date.now()).toBeGreaterThanOrEqual(firstEndedAt);
  expect(JSON.parse(ended.stdout)).toMatchObject({ exit_code: 75, stop_reason: 'no-wait' });
  expect(ended.stderr).not.toMatch(/is using this journal|still holds/);
  expect(posts(sim.ledger)).toBe(1);
  return ws;
}

test.skipIf(!BUILT)('wait: the second run takes the job as soon as the first ends, and carries on', async () => {
  const ws = await secondWaitsForFirst();
  expect(readJournal(ws.state).byId.get('v1')!.state).toMatch(/^(submitted|running)$/);
});

const pg = usePgSchema('gbatch_overlap');

test.skipIf(!BUILT || !pgAvailable())(
  'PostgreSQL: a run joins the job by default; with --if-running skip it sees the live runner and exits 5',
  async () => {
    const { sim, env, args, first } = await liveRunner(30, ['--journal', pg.url()]);
    try {
      const skipped = await runCli([...args, '--if-running', 'skip'], { env });
      expect(skipped.code, skipped.stderr).toBe(5);
      expect(skipped.stderr).toMatch(
        new RegExp(`skipped: the gbatch run pid ${first.child.pid} on .+ is still running this job`),
      );
      expect(posts(sim.ledger)).toBe(1);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect((await first.result).code).toBe(75);
  },
);

const pgWait = usePgSchema('gbatch_overlap_wait');

test.skipIf(!BUILT || !pgAvailable())(
  'PostgreSQL: --if-running wait holds a second run until the live runner ends, then it takes the job',
  async () => {
    await secondWaitsForFirst(['--journal', pgWait.url()]);
  },
);
