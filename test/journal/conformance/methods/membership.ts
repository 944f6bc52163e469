// This process's standing as a runner of the job.
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { JournalBusyError, LockLostError, type JournalStore } from '../../../../src/journal/index.js';
import { deadPid } from '../../../helpers/dead-pid.js';
import { ingest, row, submit, thrown, type Harness } from '../harness.js';

export function membershipConformance(label: string, harness: Harness): void {
  describe(`membership: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    const staleKnob = process.env.GBATCH_LOCK_STALE_MS;
    afterEach(() => {
      if (staleKnob === undefined) delete process.env.GBATCH_LOCK_STALE_MS;
      else process.env.GBATCH_LOCK_STALE_MS = staleKnob;
    });

    it('counts the rows a runner holds', async () => {
      await ingest(store, [row('a', 1), row('b', 2)]);
      await store.membership.acquire();
      await store.applyTransitions([submit('a')]);
      expect((await store.membership.runners()).map((r) => r.rows)).toEqual([1]);
    });

    it('a job of one runner: nothing to sweep, no work of others, standing confirmed now', async () => {
      await ingest(store, [row('a', 1), row('b', 2)]);
      await store.membership.acquire();
      await store.applyTransitions([submit('a')]);
      const { runners, ...takeover } = await store.membership.sweep();
      expect(takeover).toEqual({ madeUncertain: [], adopted: [], released: 0 });
      // The fleet's size as the sweep saw it: this runner alone (a journal of one runner may not say).
      expect([undefined, 1]).toContain(runners);
      expect((await store.membership.othersWork()).held).toBe(0);
      expect((await store.get('a'))!.state).toBe('submitting');
      const before = performance.now();
      expect(await store.membership.heartbeat()).toBe(true);
      expect(store.membership.confirmedAt()).toBeGreaterThanOrEqual(before);
      expect(store.membership.confirmedAt()).toBeLessThanOrEqual(performance.now());
    });

    it("a runner's acknowledgement shows on its row in runners()", async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await store.membership.acquire();
      expect((await store.membership.runners())[0]!.cancelSeenAt ?? null).toBeNull();
      const cancel = (await store.setJobCancel('stop'))!;
      await store.membership.acknowledgeCancel();
      expect((await store.membership.runners())[0]!.cancelSeenAt).toBeGreaterThanOrEqual(cancel.at);
      await store.membership.release();
    });

    // One runner per journal is SQLite's rule (its lock); a database takes many runners on one job
    // (test/journal/postgres/runners.test.ts).
    describe.runIf(harness.adapter === 'sqlite')('one runner per journal', () => {
      it('one live runner: the next is refused (busy), then joins once the first released', async () => {
        expect(await store.membership.acquire()).toBeUndefined();
        const second = await harness.open({ clock });
        const busy = await thrown(second.membership.acquire());
        expect(busy).toBeInstanceOf(JournalBusyError);
        expect(busy).toMatchObject({ code: 'GBATCH_JOURNAL_BUSY', pid: process.pid, host: hostname() });
        expect((busy as Error).message).toContain(`pid ${process.pid}`);
        const [runner] = await second.membership.runners();
        expect(runner).toMatchObject({
          pid: process.pid,
          host: hostname(),
          heartbeatAt: clock.now(),
          liveness: { alive: true, basis: 'pid-alive' },
        });
        expect(await store.membership.heartbeat()).toBe(true);
        await store.membership.release();
        expect(await second.membership.runners()).toEqual([]);
        expect(await second.membership.acquire()).toBeUndefined();
      });

      it('takes over from a runner on another host whose heartbeat is stale (GBATCH_LOCK_STALE_MS), not from a fresh one', async () => {
        process.env.GBATCH_LOCK_STALE_MS = '5000';
        const pid = await deadPid();
        await harness.plantRunner({ pid, host: 'other-host.example', heartbeatAt: clock.now() });
        await expect(store.membership.acquire()).rejects.toThrow(/other-host\.example/);
        expect((await store.membership.runners())[0]!.liveness).toEqual({
          alive: true,
          heartbeatAgeMs: 0,
          basis: 'heartbeat-fresh',
        });
        clock.tick(4999);
        await expect(store.membership.acquire()).rejects.toBeInstanceOf(JournalBusyError);
        clock.tick(1);
        expect((await store.membership.runners())[0]!.liveness).toEqual({
          alive: false,
          heartbeatAgeMs: 5000,
          basis: 'heartbeat-stale',
        });
        expect(await store.membership.acquire()).toEqual({
          pid,
          host: 'other-host.example',
          heartbeatAt: clock.now() - 5000,
        });
        expect((await store.membership.runners()).map((r) => r.pid)).toEqual([process.pid]);
      });

      it('takes over from a dead pid on this host at once; the runner taken over loses its standing and writes nothing', async () => {
        await ingest(store, [row('a', 1)]);
        const pid = await deadPid();
        await harness.plantRunner({ pid, host: hostname(), heartbeatAt: clock.now() });
        expect(await store.membership.acquire()).toEqual({ pid, host: hostname(), heartbeatAt: clock.now() });

        // This process's runner seen from elsewhere as gone (its start time no longer matches): taken over.
        const old = store;
        await harness.plantRunner({
          pid: process.pid,
          host: hostname(),
          heartbeatAt: clock.now(),
          processStart: 'another-boot/1',
        });
        const next = await harness.open({ clock });
        expect(await next.membership.acquire()).toMatchObject({ pid: process.pid, host: hostname() });
        expect(await old.membership.heartbeat()).toBe(false);
        await expect(old.applyTransitions([submit('a')])).rejects.toBeInstanceOf(LockLostError);
        await expect(old.applyTransitions([submit('a')])).rejects.toBeInstanceOf(LockLostError);
        old.membership.forget();
        await old.membership.release();
        expect(await next.membership.runners()).toHaveLength(1);
        expect((await next.get('a'))!.state).toBe('pending');
        await next.applyTransitions([submit('a')]);
      });
    });
  });
}
