// Issue 13: what `status --check` calls an operator for, and the exit code `run` would give now. Pure.
import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { healthOf, latestError, type HealthFacts } from '../../src/cli/status-check.js';
import type { RunnerView } from '../../src/journal/index.js';
import type { LastRunView } from '../../src/cli/last-run.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const counts = (some: Partial<Record<ItemState, number>> = {}): Record<ItemState, number> =>
  ({ ...Object.fromEntries(ITEM_STATES.map((s) => [s, 0])), ...some }) as Record<ItemState, number>;
const runner = (alive: boolean, rows = 0): RunnerView => ({
  runnerId: 'r1',
  pid: 4242,
  host: 'night-host',
  startedAt: NOW - 60_000,
  heartbeatAt: NOW - 5_000,
  rows,
  liveness: { alive, heartbeatAgeMs: 5_000, basis: alive ? 'pid-alive' : 'pid-gone' },
});
const lastRun = (over: Partial<LastRunView> = {}): LastRunView => ({
  id: 1,
  pid: 4242,
  host: 'night-host',
  started_at: new Date(NOW - 600_000).toISOString(),
  ended_at: new Date(NOW - 60_000).toISOString(),
  exit_code: 0,
  stop_reason: null,
  message: null,
  running: false,
  needs_attention: false,
  ...over,
});
const facts = (over: Partial<HealthFacts> = {}): HealthFacts => ({
  adapter: 'sqlite',
  counts: counts({ downloaded: 5 }),
  runners: [],
  lastRun: lastRun(),
  cancel: undefined,
  createdAt: NOW - 3_600_000,
  lastError: undefined,
  now: NOW,
  ...over,
});

describe('status --check: what needs an operator', () => {
  it('a finished job needs nothing; run would exit 0', () => {
    const health = healthOf(facts());
    expect(health.needsOperator).toEqual([]);
    expect(health.wouldExit).toBe(0);
    expect(health.liveness).toEqual({ state: 'none', pid: null, host: null, heartbeat_age_s: null });
    expect(health.durations).toEqual({
      job_age_s: 3600,
      since_last_run_start_s: 600,
      since_last_run_end_s: 60,
      last_run_s: 540,
    });
  });

  it('uncertain rows', () => {
    const health = healthOf(facts({ counts: counts({ uncertain: 2, downloaded: 3 }) }));
    expect(health.needsOperator).toEqual([
      '2 item(s) uncertain (the gateway may have them): decide with `gbatch resolve`',
    ]);
    expect(health.wouldExit).toBe(4);
  });

  it('a dead runner holding the lock (SQLite), or a gone runner still holding rows (PostgreSQL)', () => {
    const sqlite = healthOf(
      facts({ runners: [runner(false)], counts: counts({ submitted: 1 }), lastRun: lastRun({ ended_at: null }) }),
    );
    expect(sqlite.needsOperator).toEqual([
      expect.stringMatching(/^runner pid 4242 on night-host is gone but still holds the job \(heartbeat 5 s ago\)/),
    ]);
    expect(sqlite.liveness).toEqual({ state: 'dead', pid: 4242, host: 'night-host', heartbeat_age_s: 5 });
    expect(sqlite.wouldExit).toBe(75);
    expect(healthOf(facts({ adapter: 'postgres', runners: [runner(false, 3)] })).needsOperator).toHaveLength(1);
    // A gone runner whose rows were taken over holds nothing: nothing to do.
    expect(healthOf(facts({ adapter: 'postgres', runners: [runner(false, 0)] })).needsOperator).toEqual([]);
  });

  it('a live runner needs nothing; on SQLite a run now would be refused (73)', () => {
    const health = healthOf(
      facts({
        runners: [runner(true)],
        counts: counts({ pending: 4, running: 1 }),
        lastRun: lastRun({ ended_at: null, running: true }),
      }),
    );
    expect(health.needsOperator).toEqual([]);
    expect(health.wouldExit).toBe(73);
    expect(health.liveness.state).toBe('alive');
    expect(health.durations.since_last_run_end_s).toBeNull();
    expect(
      healthOf(facts({ adapter: 'postgres', runners: [runner(true)], counts: counts({ running: 1 }) })).wouldExit,
    ).toBe(75);
  });

  it('a stop by the budget or by the balance (402)', () => {
    expect(
      healthOf(facts({ counts: counts({ deferred: 3 }), lastRun: lastRun({ stop_reason: 'budget', exit_code: 3 }) }))
        .needsOperator,
    ).toEqual(["stopped by the job's budget: raise --budget (or --no-budget); 3 item(s) deferred"]);
    const balance = healthOf(
      facts({ counts: counts({ deferred: 2 }), lastRun: lastRun({ stop_reason: 'balance', exit_code: 3 }) }),
    );
    expect(balance.needsOperator).toEqual(["stopped by the gateway's balance (402): top up; 2 item(s) deferred"]);
    expect(balance.wouldExit).toBe(3);
  });

  it('a cancelled job whose sent work no runner settles; not once it is settled, nor while a runner is on it', () => {
    const cancel = { at: NOW - 120_000, reason: 'wrong prompts' };
    const stranded = healthOf(facts({ cancel, counts: counts({ submitted: 2, cancelled: 5 }) }));
    expect(stranded.needsOperator).toEqual([
      expect.stringMatching(/^the job is cancelled, but 2 item\(s\) already sent are not being settled/),
    ]);
    expect(stranded.cancelled).toEqual({ at: new Date(cancel.at).toISOString(), reason: 'wrong prompts' });
    expect(healthOf(facts({ cancel, counts: counts({ downloaded: 2, cancelled: 5 }) })).needsOperator).toEqual([]);
    expect(healthOf(facts({ cancel, counts: counts({ downloaded: 2, cancelled: 5 }) })).wouldExit).toBe(0);
    expect(
      healthOf(facts({ cancel, runners: [runner(true)], counts: counts({ running: 2, cancelled: 5 }) })).needsOperator,
    ).toEqual([]);
  });

  it('issue 32: live PostgreSQL runners and no recorded ending are a running job, not a crash', () => {
    const live = (pid: number): RunnerView => ({ ...runner(true, 2), runnerId: `r${pid}`, pid });
    const three = facts({
      adapter: 'postgres',
      runners: [live(1), live(2), live(3)],
      counts: counts({ pending: 4, running: 6 }),
      // The last run recorded is another runner's than the one status judged the holder: it reads not running.
      lastRun: lastRun({ pid: 3, ended_at: null, running: false }),
    });
    expect(healthOf(three).needsOperator).toEqual([]);
    // With no live runner the same unrecorded ending is one: run again to resume.
    expect(healthOf({ ...three, runners: [] }).needsOperator).toEqual([
      expect.stringMatching(/ended without recording how/),
    ]);
  });

  it('a last run killed, refused by the gateway (401) or ended on a bug', () => {
    expect(healthOf(facts({ lastRun: lastRun({ ended_at: null }) })).needsOperator).toEqual([
      expect.stringMatching(/ended without recording how/),
    ]);
    expect(healthOf(facts({ lastRun: lastRun({ stop_reason: 'auth', exit_code: 2 }) })).needsOperator).toEqual([
      expect.stringMatching(/401/),
    ]);
    expect(
      healthOf(
        facts({ lastRun: lastRun({ stop_reason: 'internal-error', exit_code: 70, message: 'Error: boom\u001b[31m' }) }),
      ).needsOperator,
    ).toEqual(['the last run ended on an internal error (exit 70): Error: boom\\x1b[31m']);
  });

  it('the last error is the most recent one, printable', () => {
    const item = (id: string, at: number, message: string | null) =>
      ({ id, state: 'failed', updatedAt: at, lastError: message === null ? null : { message } }) as never;
    expect(latestError([item('a', 1, 'old'), item('b', 3, 'new\nline'), item('c', 5, null)])).toEqual({
      id: 'b',
      state: 'failed',
      message: 'new\nline',
      at: 3,
    });
    const health = healthOf(facts({ lastError: { id: 'b', state: 'failed', message: 'new\nline', at: NOW } }));
    expect(health.lastError).toEqual({
      id: 'b',
      state: 'failed',
      message: 'new\\x0aline',
      at: new Date(NOW).toISOString(),
    });
  });
});
