import { ManualClock } from '../../../src/core/clock.js';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { JournalBusyError, STALE_AFTER_MS } from '../../../src/journal/index.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';
import { deadPid } from '../../helpers/dead-pid.js';
import { rawDb } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

function lockRow(journal: ReturnType<typeof tmp.open>): Record<string, unknown> | undefined {
  return rawDb(journal).prepare('SELECT * FROM runner_lock').get() as Record<string, unknown> | undefined;
}

describe('RunnerLock', () => {
  it('acquires an empty lock, naming this process as holder', () => {
    const clock = new ManualClock(1_000_000);
    const journal = tmp.open('job.db', { clock });
    expect(journal.lock.holder()).toBeUndefined();
    expect(journal.lock.acquire(journal.file)).toBeUndefined();
    expect(journal.lock.holder()).toEqual({ pid: process.pid, host: hostname(), heartbeatAt: 1_000_000 });
  });

  it('refuses a second runner while the holder is alive and its heartbeat fresh', () => {
    const clock = new ManualClock(1_000_000);
    const first = tmp.open('job.db', { clock });
    const second = tmp.open('job.db', { clock });
    first.lock.acquire(first.file);
    const row = lockRow(first);
    clock.tick(STALE_AFTER_MS - 1);

    let thrown: unknown;
    try {
      second.lock.acquire(second.file);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(JournalBusyError);
    expect(thrown).toMatchObject({ code: 'GBATCH_JOURNAL_BUSY', pid: process.pid, host: hostname() });
    const message = (thrown as Error).message;
    expect(message).toContain(second.file);
    expect(message).toContain(`pid ${process.pid}`);
    expect(message).toContain(hostname());
    expect(lockRow(first)).toEqual(row);
  });

  it('takes over a lock whose pid is gone (a killed runner) and reports the takeover', async () => {
    const clock = new ManualClock(2_000_000);
    const journal = tmp.open('job.db', { clock });
    const pid = await deadPid();
    rawDb(journal)
      .prepare(
        `INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at)
      VALUES (1, ?, ?, 'dead-token', ?, ?)`,
      )
      .run(pid, hostname(), clock.now() - 1000, clock.now() - 500);

    expect(journal.lock.acquire(journal.file)).toEqual({ pid, host: hostname(), heartbeatAt: clock.now() - 500 });
    expect(journal.lock.holder()).toEqual({ pid: process.pid, host: hostname(), heartbeatAt: clock.now() });
    expect(lockRow(journal)!.token).not.toBe('dead-token');
  });

  it('never takes over a live pid on this host, however old its heartbeat (a stopped runner is alive)', () => {
    const clock = new ManualClock(3_000_000);
    const first = tmp.open('job.db', { clock });
    first.lock.acquire(first.file);
    const second = tmp.open('job.db', { clock });
    clock.tick(10 * STALE_AFTER_MS);

    expect(() => second.lock.acquire(second.file)).toThrow(JournalBusyError);
    expect(second.lock.holder()!.heartbeatAt).toBe(3_000_000);
  });

  it('takes over a lock whose pid is alive but is another process (the pid was reused: its start time differs)', () => {
    const clock = new ManualClock(3_500_000);
    const first = tmp.open('job.db', { clock });
    first.lock.acquire(first.file);
    expect(lockRow(first)!.process_start).toMatch(/^.*\/\d+$/);
    rawDb(first).prepare(`UPDATE runner_lock SET process_start = 'another-boot/1'`).run();
    const second = tmp.open('job.db', { clock });

    expect(second.lock.acquire(second.file)).toEqual({ pid: process.pid, host: hostname(), heartbeatAt: 3_500_000 });
  });

  it('a heartbeat keeps the lock fresh', () => {
    const clock = new ManualClock(4_000_000);
    const first = tmp.open('job.db', { clock });
    const second = tmp.open('job.db', { clock });
    first.lock.acquire(first.file);
    clock.tick(20_000);
    first.lock.heartbeat();
    clock.tick(20_000); // 40 s after acquire, 20 s after the heartbeat
    expect(() => second.lock.acquire(second.file)).toThrow(JournalBusyError);
  });

  it('beats through the runner (its commit relaxed), also while an ingest holds its transaction open', async () => {
    const clock = new ManualClock(4_000_000);
    const journal = tmp.open('job.db', { clock });
    const { store } = journal;
    await store.saveJob({ name: 'job', manifest: 'rows.jsonl', options: {} });
    journal.lock.acquire(journal.file);
    clock.tick(1_000);
    expect(await store.membership.heartbeat()).toBe(true);
    expect(journal.lock.holder()!.heartbeatAt).toBe(4_001_000);
    const writer = await store.beginIngest();
    clock.tick(1_000);
    expect(await store.membership.heartbeat()).toBe(true);
    await writer.commit();
    expect(journal.lock.holder()!.heartbeatAt).toBe(4_002_000);
    expect(rawDb(journal).pragma('synchronous', { simple: true })).toBe(2); // FULL again for the run's commits
  });

  it('trusts a fresh lock from another host (its pid cannot be checked) but takes over a stale one', async () => {
    const clock = new ManualClock(5_000_000);
    const journal = tmp.open('job.db', { clock });
    const pid = await deadPid();
    rawDb(journal)
      .prepare(
        `INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at)
      VALUES (1, ?, 'other-host.example', 'remote', ?, ?)`,
      )
      .run(pid, clock.now(), clock.now());
    expect(() => journal.lock.acquire(journal.file)).toThrow(/other-host\.example/);
    clock.tick(STALE_AFTER_MS);
    expect(journal.lock.acquire(journal.file)).toMatchObject({ pid, host: 'other-host.example' });
  });

  it('release deletes only our own row', () => {
    const clock = new ManualClock(6_000_000);
    const first = tmp.open('job.db', { clock });
    const second = tmp.open('job.db', { clock });
    first.lock.release(); // never acquired: nothing happens
    first.lock.acquire(first.file);
    rawDb(first).prepare(`UPDATE runner_lock SET process_start = 'another-boot/1'`).run(); // first's process is gone
    second.lock.acquire(second.file);
    const secondsRow = lockRow(second);

    first.lock.release(); // the taken-over runner must not free the new holder's lock
    expect(lockRow(first)).toEqual(secondsRow);

    second.lock.release();
    expect(lockRow(second)).toBeUndefined();
    expect(first.lock.acquire(first.file)).toBeUndefined();
  });
});
