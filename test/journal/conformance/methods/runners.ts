// The job's runners as views list them.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

export function runnersConformance(label: string, harness: Harness): void {
  describe(`runners: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it("lists the job's runners for views: the one that joined, live, as a read-only reader sees it too", async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      expect(await store.runners()).toEqual([]);
      await store.membership.acquire();
      const reader = await harness.open({ clock, readonly: true });
      for (const runners of [await store.runners(), await reader.runners()]) {
        expect(runners).toHaveLength(1);
        expect(runners[0]).toMatchObject({ pid: process.pid, rows: 0, liveness: { alive: true } });
      }
      await store.membership.release();
    });
  });
}
