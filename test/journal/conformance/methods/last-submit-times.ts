// The event log's questions about each row's submits and abandons.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, submit, type Harness } from '../harness.js';

export function lastSubmitTimesConformance(label: string, harness: Harness): void {
  describe(`lastSubmitTimes and abandonedWhileUncertain: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('lastSubmitTimes gives each id its latest submit; abandonedWhileUncertain tells abandon-of-uncertain apart', async () => {
      await store.applyTransitions([submit('chat'), { id: 'chat', event: 'lose' }, { id: 'chat', event: 'resubmit' }]);
      clock.tick(100);
      await store.applyTransitions([submit('chat', 0.01, 2), submit('third')]);
      expect(await store.lastSubmitTimes(['chat', 'third', 'fourth'])).toEqual(
        new Map([
          ['chat', clock.now()],
          ['third', clock.now()],
        ]),
      );
      await store.applyTransitions([
        { id: 'chat', event: 'lose' },
        { id: 'chat', event: 'abandon' },
        { id: 'fourth', event: 'abandon' },
      ]);
      await store.applyTransitions([
        { id: 'third', event: 'lose' },
        { id: 'third', event: 'abandon' },
        { id: 'third', event: 'requeue' },
        { id: 'third', event: 'abandon' },
      ]);
      expect(await store.abandonedWhileUncertain(['chat', 'third', 'fourth'])).toEqual(new Set(['chat']));
      expect(await store.abandonedWhileUncertain([])).toEqual(new Set());
    });
  });
}
