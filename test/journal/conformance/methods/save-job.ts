// The job's record: saved, updated, its budget and the job file's budget kept; the start forecast kept once, by
// whichever store of the journal keeps it first, and kept by every later save.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { START_FORECAST_KEY, type StartForecast } from '../../../../src/core/start-forecast.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

function forecast(at: number, p50Usd: number): StartForecast {
  const total = { p50Usd, p90Usd: p50Usd * 1.5, basisRows: 3, rowsWithoutHistory: 1 };
  return { at, total, models: { 'chat-small': total } };
}

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

    it('keeps the start forecast once: a later one is not kept, and the one kept is told with made false', async () => {
      const name = harness.jobName();
      expect(await store.keepStartForecast(forecast(1, 0.5))).toBeUndefined();
      await store.saveJob({ name, manifest: 'rows.jsonl', options: { concurrency: 4 }, budgetUsd: 2 });
      expect(await store.keepStartForecast(forecast(1, 0.1234567891))).toEqual({
        forecast: forecast(1, 0.1234567891),
        made: true,
      });
      expect(await store.keepStartForecast(forecast(2, 9))).toEqual({
        forecast: forecast(1, 0.1234567891),
        made: false,
      });
      expect(await store.getJob()).toMatchObject({
        options: { concurrency: 4, [START_FORECAST_KEY]: forecast(1, 0.1234567891) },
        budgetUsd: 2,
      });
    });

    it('a save whose options carry no start forecast keeps the one kept; one that carries it writes it', async () => {
      const name = harness.jobName();
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {} });
      await store.keepStartForecast(forecast(1, 0.5));
      await store.saveJob({ name, manifest: 'rows2.jsonl', options: { budget: 3 }, budgetUsd: 3 });
      expect(await store.getJob()).toMatchObject({
        manifest: 'rows2.jsonl',
        options: { budget: 3, [START_FORECAST_KEY]: forecast(1, 0.5) },
        budgetUsd: 3,
      });
      await store.saveJob({ name, manifest: 'rows2.jsonl', options: { [START_FORECAST_KEY]: forecast(1, 0.5), x: 1 } });
      expect((await store.getJob())!.options).toEqual({ [START_FORECAST_KEY]: forecast(1, 0.5), x: 1 });
    });

    it('options whose strings carry any character (a NUL too) are saved and keep the forecast', async () => {
      const name = harness.jobName();
      const options = { metadata: { note: 'a\u0000b \u2028 "q" \\' } };
      await store.saveJob({ name, manifest: 'rows.jsonl', options });
      expect((await store.keepStartForecast(forecast(1, 0.5)))?.made).toBe(true);
      await store.saveJob({ name, manifest: 'rows.jsonl', options });
      expect((await store.getJob())!.options).toEqual({ ...options, [START_FORECAST_KEY]: forecast(1, 0.5) });
    });

    it('stores of the journal keeping at once: one forecast is kept, and each store is told that one', async () => {
      const name = harness.jobName();
      await store.saveJob({ name, manifest: 'rows.jsonl', options: {} });
      const stores = [store, ...(await Promise.all([1, 2, 3, 4].map(() => harness.open({ clock }))))];
      const told = await Promise.all(stores.map((s, i) => s.keepStartForecast(forecast(i + 1, i + 1))));
      const kept = (await store.getJob())!.options[START_FORECAST_KEY];
      expect(told.map((t) => t!.forecast)).toEqual(stores.map(() => kept));
      expect(told.filter((t) => t!.made)).toHaveLength(1);
    });
  });
}
