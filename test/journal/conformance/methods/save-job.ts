// The job's record: saved, updated, its budget and the job file's budget kept.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

export function saveJobConformance(label: string, harness: Harness): void {
  describe(`saveJob and getJob: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it('saves the job and keeps its budget; a later save updates it and keeps createdAt', async () => {
      const name = harness.jobName();
      clock.tick(1000);
      await store.saveJob({ name, manifest: 'rows.jsonl', options: { budget: 5, concurrency: 4 }, budgetUsd: 5 });
      const created = clock.now();
      clock.tick(1000);
      expect(await store.getJob()).toEqual({
        name,
        manifest: 'rows.jsonl',
        options: { budget: 5, concurrency: 4 },
        createdAt: created,
        updatedAt: created,
        budgetUsd: 5,
      });
      await store.saveJob({ name, manifest: 'rows2.jsonl', options: {}, budgetUsd: undefined });
      expect(await store.getJob()).toEqual({
        name,
        manifest: 'rows2.jsonl',
        options: {},
        createdAt: created,
        updatedAt: created + 1000,
      });
    });

    it("the job file's budget is recorded with the job; a save that does not say keeps the record", async () => {
      const name = harness.jobName();
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: 180, jobFileBudget: 100 });
      expect(await store.getJob()).toMatchObject({ budgetUsd: 180, jobFileBudget: 100 });
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: 180 });
      expect((await store.getJob())!.jobFileBudget).toBe(100);
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: undefined, jobFileBudget: 'none' });
      expect(await store.getJob()).toMatchObject({ jobFileBudget: 'none' });
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {}, budgetUsd: undefined, jobFileBudget: 'unset' });
      expect((await store.getJob())!.jobFileBudget).toBe('unset');
    });
  });
}
