// The one rule that says whether a journal's runner is alive (shared by the lock and `status`), and
// the process identity it relies on.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeAge, judgeRunner, staleAfterMs, STALE_AFTER_MS } from '../../src/journal/index.js';
import { pidAlive, processStartOf } from '../../src/journal/process-identity.js';

const facts = (pidIsAlive: boolean) => ({
  now: 100_000,
  thisHost: 'here',
  staleAfterMs: 30_000,
  pidAlive: () => pidIsAlive,
});

describe('judgeRunner', () => {
  it('on this host the process decides: alive with a heartbeat far past the threshold (a SIGSTOPped runner)', () => {
    expect(judgeRunner({ pid: 7, host: 'here', heartbeatAt: 0, processStart: 'b/1' }, facts(true))).toEqual({
      alive: true,
      heartbeatAgeMs: 100_000,
      basis: 'pid-alive',
    });
  });

  it('on this host a gone process is gone, however fresh its heartbeat (a SIGKILLed runner)', () => {
    expect(judgeRunner({ pid: 7, host: 'here', heartbeatAt: 99_000, processStart: 'b/1' }, facts(false))).toEqual({
      alive: false,
      heartbeatAgeMs: 1_000,
      basis: 'pid-gone',
    });
  });

  it('on another host only the heartbeat can tell', () => {
    const asked: number[] = [];
    const remote = { ...facts(true), pidAlive: (pid: number) => (asked.push(pid), true) };
    expect(judgeRunner({ pid: 7, host: 'there', heartbeatAt: 80_000, processStart: null }, remote).alive).toBe(true);
    expect(judgeRunner({ pid: 7, host: 'there', heartbeatAt: 70_000, processStart: null }, remote)).toEqual({
      alive: false,
      heartbeatAgeMs: 30_000,
      basis: 'heartbeat-stale',
    });
    expect(asked).toEqual([]);
  });

  it('describes ages for an operator', () => {
    expect(describeAge(1_200)).toBe('1 s ago');
    expect(describeAge(180_000)).toBe('3 min ago');
    expect(describeAge(5 * 3_600_000)).toBe('5 h ago');
  });

  it('GBATCH_LOCK_STALE_MS overrides the stale threshold (a test knob); anything else keeps 30 s', () => {
    expect(staleAfterMs({ GBATCH_LOCK_STALE_MS: '500' })).toBe(500);
    expect(staleAfterMs({})).toBe(STALE_AFTER_MS);
    expect(staleAfterMs({ GBATCH_LOCK_STALE_MS: 'soon' })).toBe(STALE_AFTER_MS);
  });
});

describe('process identity', () => {
  it('a live process has a stable identity; a reused pid (another start) is not it; an exited pid is gone', async () => {
    const mine = processStartOf(process.pid);
    expect(mine).toMatch(/\/\d+$/);
    expect(processStartOf(process.pid)).toBe(mine);
    expect(pidAlive(process.pid, mine)).toBe(true);
    expect(pidAlive(process.pid, null)).toBe(true);
    expect(pidAlive(process.pid, `${mine}0`)).toBe(false);

    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    expect(pidAlive(child.pid!, null)).toBe(false);
    expect(processStartOf(child.pid!)).toBeNull();
  });
});
