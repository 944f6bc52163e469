// Reads, decides and applies under one write lock.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { IllegalTransitionError } from '../../../../src/core/states.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { collect, ingest, row, submit, type Harness } from '../harness.js';

export function decideAndApplyConformance(label: string, harness: Harness): void {
  describe(`decideAndApply: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, [row('a', 1), row('b', 2)]);
      await store.applyTransitions([submit('a'), { id: 'a', event: 'lose' }]);
    });

    it('applies what decide chose from what it read, and returns its result', async () => {
      const result = await store.decideAndApply(async (reader) => {
        const item = await reader.get('a');
        const pending = await reader.list(['pending']);
        const all = await collect(reader.iterate({}));
        return {
          changes: [{ id: 'a', event: 'resubmit', expect: item!.state }],
          result: { saw: item!.state, pending: pending.length, all: all.length },
        };
      });
      expect(result).toEqual({ saw: 'uncertain', pending: 1, all: 2 });
      expect((await store.get('a'))!.state).toBe('pending');
    });

    it('applies all of the changes or none', async () => {
      await expect(
        store.decideAndApply(async () => ({
          changes: [
            { id: 'b', event: 'submit' },
            { id: 'a', event: 'finish' },
          ],
          result: 1,
        })),
      ).rejects.toBeInstanceOf(IllegalTransitionError);
      await expect(
        store.decideAndApply(async () => {
          throw new Error('decide failed');
        }),
      ).rejects.toThrow('decide failed');
      expect((await store.get('b'))!.state).toBe('pending');
      expect((await store.get('a'))!.state).toBe('uncertain');
      expect(await store.decideAndApply(async () => ({ changes: [], result: 'nothing' }))).toBe('nothing');
    });
  });
}
