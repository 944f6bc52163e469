// A fresh journal, and the read-only opener: it reads what a store wrote and writes nothing.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { knownErrorExit } from '../../../../src/api/error-exit.js';
import { NewerSchemaError, type JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, zeroCounts, type Harness } from '../harness.js';

export function openConformance(label: string, harness: Harness): void {
  describe(`openStore and openQueries: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it('refuses a journal written by a newer gbatch, read-only too: NewerSchemaError, a usage exit naming both versions', async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'm.csv', options: {}, budgetUsd: undefined });
      const restore = await harness.newerSchema();
      try {
        for (const readonly of [false, true]) {
          const refusal = await harness.open({ readonly }).then(
            () => undefined,
            (err: unknown) => err,
          );
          expect(refusal).toBeInstanceOf(NewerSchemaError);
          expect(refusal).toMatchObject({ code: 'GBATCH_SCHEMA_NEWER', exit: 'usage' });
          expect(knownErrorExit(refusal)?.exitCode).toBe(2);
          expect((refusal as Error).message).toMatch(
            /journal schema version (\d+) is newer than this gbatch supports \((\d+)\); upgrade gbatch$/,
          );
        }
      } finally {
        await restore();
      }
    });

    it('starts empty: no job, every state counted at zero, nothing spent', async () => {
      expect(await store.getJob()).toBeUndefined();
      expect(await store.counts()).toEqual(zeroCounts());
      expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
      expect(await store.list(['pending'])).toEqual([]);
      expect(await store.lastRun()).toBeUndefined();
      expect(await store.firstOpenSeq()).toBeUndefined();
      expect(await store.resultRows(0, 10, 1000)).toEqual([]);
      expect(await store.reportSums()).toEqual({
        total: {
          items: 0,
          settled: null,
          estimated: null,
          actual: null,
          settled_estimated: null,
          reserved: null,
          over: null,
          gateway: null,
          gateway_n: 0,
          tokens: null,
          unmetered: null,
        },
        groups: [],
      });
    });

    it('a read-only store reads the journal and writes nothing', async () => {
      await ingest(store, [row('a', 1)]);
      const reader = await harness.open({ clock, readonly: true });
      expect((await reader.get('a'))!.state).toBe('pending');
      expect((await reader.counts()).pending).toBe(1);
      await expect(reader.applyTransitions([submit('a')])).rejects.toThrow();
      expect((await store.get('a'))!.state).toBe('pending');
    });
  });
}
