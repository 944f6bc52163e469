// The job's runs.
import { hostname } from 'node:os';
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

export function runsConformance(label: string, harness: Harness): void {
  describe(`recordRunStart, recordRunEnd and lastRun: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it('records each run start and end; lastRun is the latest; long messages are cut', async () => {
      const first = await store.recordRunStart();
      expect(await store.lastRun()).toEqual({
        id: first,
        pid: process.pid,
        host: hostname(),
        startedAt: clock.now(),
        endedAt: null,
        exitCode: null,
        stopReason: null,
        message: null,
      });
      clock.tick(50);
      await store.recordRunEnd(first, { exitCode: 0, stopReason: 'done', message: 'm'.repeat(1500) });
      expect(await store.lastRun()).toMatchObject({
        id: first,
        endedAt: clock.now(),
        exitCode: 0,
        stopReason: 'done',
        message: 'm'.repeat(1000),
      });
      const second = await store.recordRunStart();
      expect(second).toBeGreaterThan(first);
      expect(await store.lastRun()).toMatchObject({ id: second, endedAt: null });
    });
  });
}
