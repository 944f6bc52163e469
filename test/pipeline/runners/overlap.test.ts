// Issue 13: `--if-running` on a journal whose runner is alive, on a clock the test drives.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { JournalBusyError } from '../../../src/journal/index.js';
import type { RunnerMembership, RunnerView } from '../../../src/journal/store.js';
import { RunSkippedError } from '../../../src/core/run-skipped-error.js';
import { acquireRunner, type OverlapPolicy } from '../../../src/pipeline/runners/overlap.js';

/** A lock held by pid 77 until `freeAt` on the clock; counts the attempts. */
function heldUntil(clock: ManualClock, freeAt: number, live: RunnerView[] = []) {
  const membership = {
    attempts: 0,
    async acquire() {
      membership.attempts++;
      if (clock.now() < freeAt) throw new JournalBusyError('state/job.db', 77, 'night-host');
      return undefined;
    },
    async runners() {
      return clock.now() < freeAt ? live : [];
    },
  };
  return membership as typeof membership & RunnerMembership;
}

const liveRunner: RunnerView = {
  runnerId: 'r',
  pid: 77,
  host: 'night-host',
  startedAt: 0,
  heartbeatAt: 0,
  rows: 0,
  liveness: { alive: true, heartbeatAgeMs: 0, basis: 'pid-alive' },
};

async function outcome(work: Promise<unknown>): Promise<unknown> {
  try {
    return await work;
  } catch (err) {
    return err;
  }
}

describe('acquireRunner', () => {
  const policy = (over: Partial<OverlapPolicy>): OverlapPolicy => ({
    policy: undefined,
    timeoutMs: 3_600_000,
    pollMs: 1000,
    ...over,
  });

  it('fail (and no policy): the busy error at once', async () => {
    const clock = new ManualClock(0);
    for (const p of [undefined, 'fail'] as const) {
      const lock = heldUntil(clock, 10_000);
      expect(
        await outcome(acquireRunner(lock, false, policy({ policy: p }), clock, 'state/job.db', () => {})),
      ).toBeInstanceOf(JournalBusyError);
      expect(lock.attempts).toBe(1);
    }
  });

  it('skip: a RunSkippedError naming the holder, at once', async () => {
    const clock = new ManualClock(0);
    const err = await outcome(
      acquireRunner(heldUntil(clock, 10_000), false, policy({ policy: 'skip' }), clock, 'state/job.db', () => {}),
    );
    expect(err).toBeInstanceOf(RunSkippedError);
    expect((err as Error).message).toBe(
      'skipped: the gbatch run pid 77 on night-host is still running this job (--if-running skip); nothing was done',
    );
  });

  it('wait: polls until the lock is free, saying once that it waits', async () => {
    const clock = new ManualClock(0);
    const lock = heldUntil(clock, 4_500);
    const lines: string[] = [];
    const joined = acquireRunner(lock, false, policy({ policy: 'wait' }), clock, 'state/job.db', (line) =>
      lines.push(line),
    );
    for (let i = 0; i < 5; i++) {
      await clock.waitForSleepers();
      await clock.advance(1000);
    }
    expect(await joined).toBeUndefined();
    expect(lock.attempts).toBe(6);
    expect(lines).toEqual([
      'the gbatch run pid 77 on night-host is still running this job: waiting for it to end (--if-running wait, up to 1970-01-01T01:00:00.000Z)',
    ]);
  });

  it('wait: gives up at its bound, or at the deadline when that comes first, as a busy error saying which', async () => {
    const cases = [
      [{ timeoutMs: 3_000 }, '--if-running-timeout', 3, [1000, 1000, 1000]],
      [{ deadlineAt: 1_500 }, 'the --deadline came first', 2, [1000, 500]],
    ] as const;
    for (const [over, why, waited, steps] of cases) {
      const clock = new ManualClock(0);
      const lock = heldUntil(clock, 60_000);
      const gaveUp = outcome(
        acquireRunner(lock, false, policy({ policy: 'wait', ...over }), clock, 'state/job.db', () => {}),
      );
      for (const step of steps) {
        await clock.waitForSleepers();
        await clock.advance(step);
      }
      const err = await gaveUp;
      expect(err).toBeInstanceOf(JournalBusyError);
      expect((err as Error).message).toBe(
        `state/job.db: the gbatch run pid 77 on night-host still holds this job after waiting ${waited} s (${why}); nothing was done`,
      );
      expect(lock.attempts).toBe(steps.length + 1);
      expect(clock.now()).toBe(steps.reduce((a, b) => a + b, 0));
    }
  });

  it('PostgreSQL: joins beside a live runner without a policy; with skip or fail, a live runner counts as running', async () => {
    const clock = new ManualClock(0);
    const shared = () => {
      const m = heldUntil(clock, 10_000, [liveRunner]);
      m.acquire = async () => undefined; // a database lets many runners join
      return m;
    };
    expect(await acquireRunner(shared(), true, policy({}), clock, 'db', () => {})).toBeUndefined();
    expect(
      await outcome(acquireRunner(shared(), true, policy({ policy: 'skip' }), clock, 'db', () => {})),
    ).toBeInstanceOf(RunSkippedError);
    expect(
      await outcome(acquireRunner(shared(), true, policy({ policy: 'fail' }), clock, 'db', () => {})),
    ).toBeInstanceOf(JournalBusyError);
  });
});
