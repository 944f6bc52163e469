// The forecast a job starts with is drawn once and kept in the job's record. Runners that start together on a
// fresh job, each on a journal of its own (two stores on one SQLite file; two connections to one PostgreSQL
// job), each draw one: the journal keeps the first kept, and every runner reports that one. The race is held
// open by hand, never left to timing: the second runner's read of the history waits until the first has kept
// its forecast (the second then finds it when it keeps), or both wait until both have drawn.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { startForecastOf, type StartForecast } from '../../src/core/start-forecast.js';
import type { JournalSnapshot, JournalStore } from '../../src/journal/index.js';
import { beginStartForecast } from '../../src/pipeline/start-forecast.js';
import { ingest, row, type Harness, type UseHarness } from '../journal/conformance/harness.js';
import { usePostgresHarness } from '../journal/conformance/postgres-harness.js';
import { useSqliteHarness } from '../journal/conformance/sqlite-harness.js';

interface Told {
  forecast: StartForecast;
  made: boolean;
}

/** A promise and the hand that settles it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** `store` whose snapshots read the history only once `until` settles, telling `reading` when they try. */
function heldHistory(store: JournalStore, until: Promise<void>, reading: () => void = () => {}): JournalStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'snapshot') return Reflect.get(target, key, receiver) as unknown;
      return async (): Promise<JournalSnapshot> => {
        const snapshot = await target.snapshot();
        return {
          iterate: (filter, pageSize) => snapshot.iterate(filter, pageSize),
          settledCosts: async () => {
            reading();
            await until;
            return snapshot.settledCosts();
          },
          close: () => snapshot.close(),
        };
      };
    },
  });
}

/** Two stores of a fresh job with chat rows pending, the job saved by the first, as a runner saves it. */
async function freshJob(harness: Harness): Promise<[JournalStore, JournalStore]> {
  const first = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
  const second = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
  await ingest(
    first,
    [1, 2, 3, 4].map((n) => row(`c${n}`, n)),
  );
  await first.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: { concurrency: 4 } });
  return [first, second];
}

function startFrom(store: JournalStore, at: number, told: Told[]) {
  return beginStartForecast(store, 'acct', at, (forecast, made) => told.push({ forecast, made }));
}

function racingRunners(label: string, useHarness: UseHarness): void {
  describe.skipIf(useHarness.available?.() === false)(`racing the first forecast: ${label}`, () => {
    const harness = useHarness();

    it('the second to keep finds the first one kept, and reports it as not its own', async () => {
      const [first, second] = await freshJob(harness);
      const held = gate();
      const toldFirst: Told[] = [];
      const toldSecond: Told[] = [];
      // Both find no forecast kept and pin the rows before either has drawn.
      const a = await startFrom(first, 1000, toldFirst);
      const b = await startFrom(heldHistory(second, held.opened), 2000, toldSecond);
      expect(await a.done).toEqual({ forecast: toldFirst[0]!.forecast });
      held.open();
      expect((await b.done).error).toBeUndefined();

      const kept = startForecastOf((await first.getJob())?.options)!;
      expect(kept.at).toBe(1000);
      expect(toldFirst).toEqual([{ forecast: kept, made: true }]);
      expect(toldSecond).toEqual([{ forecast: kept, made: false }]);
    });

    it('both draw before either keeps: one forecast is kept, the same one every runner reports', async () => {
      const [first, second] = await freshJob(harness);
      const bothReading = gate();
      let reading = 0;
      const onRead = () => {
        if (++reading === 2) bothReading.open();
      };
      const told: Told[][] = [[], []];
      const tasks = await Promise.all([
        startFrom(heldHistory(first, bothReading.opened, onRead), 1000, told[0]!),
        startFrom(heldHistory(second, bothReading.opened, onRead), 2000, told[1]!),
      ]);
      const ends = await Promise.all(tasks.map((t) => t.done));
      expect(ends.map((e) => e.error)).toEqual([undefined, undefined]);

      const kept = startForecastOf((await second.getJob())?.options)!;
      expect([1000, 2000]).toContain(kept.at);
      // Exactly one runner made the kept forecast; each reports that forecast, once.
      expect(told.map((t) => t.map((x) => x.forecast))).toEqual([[kept], [kept]]);
      expect(told.flat().filter((x) => x.made)).toHaveLength(1);
      expect(ends.filter((e) => e.forecast)).toEqual([{ forecast: kept }]);
    });

    it('a later run finds the kept forecast: it reports it as not its own and reads no history', async () => {
      const [first, second] = await freshJob(harness);
      await (
        await startFrom(first, 1000, [])
      ).done;
      const kept = startForecastOf((await first.getJob())?.options)!;
      let snapshots = 0;
      const counted = new Proxy(second, {
        get(target, key, receiver) {
          if (key === 'snapshot') snapshots++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      const told: Told[] = [];
      expect(await (await startFrom(counted, 2000, told)).done).toEqual({});
      expect(told).toEqual([{ forecast: kept, made: false }]);
      expect(snapshots).toBe(0);
      expect(startForecastOf((await second.getJob())?.options)).toEqual(kept);
    });

    it('a save of the job as a runner read it before the forecast was kept does not drop the forecast', async () => {
      const [first, second] = await freshJob(harness);
      const stale = (await second.getJob())!;
      const told: Told[] = [];
      await (
        await startFrom(first, 1000, told)
      ).done;
      const kept = startForecastOf((await first.getJob())?.options)!;
      expect(kept).toBeDefined();
      await second.saveJob({ name: stale.name, manifest: stale.manifest, options: { ...stale.options, budget: 3 } });
      expect((await first.getJob())?.options).toEqual({ concurrency: 4, budget: 3, startForecast: kept });
    });
  });
}

racingRunners('SQLite', useSqliteHarness);
racingRunners('PostgreSQL', usePostgresHarness);
