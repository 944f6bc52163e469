// What each id holds, as ingest and `plan` judge a row arriving under it.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, invalidRow, row, type Harness } from '../harness.js';

export function priorsConformance(label: string, harness: Harness): void {
  describe(`priors: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    // Listed (orphan 0), nothing reserved or spent.
    const unbooked = { orphan: 0, reserved_usd: 0, actual_usd: null };

    it('priors tell what each id holds', async () => {
      await ingest(store, [row('a', 4), invalidRow('b', 5)]);
      expect(await store.priors(['a', 'b', 'none'])).toEqual(
        new Map([
          [
            'a',
            { content_hash: 'hash-of-a', state: 'pending', ...unbooked, source_file: 'manifest.jsonl', source_line: 4 },
          ],
          [
            'b',
            {
              content_hash: 'invalid:b:5',
              state: 'invalid',
              ...unbooked,
              source_file: 'manifest.jsonl',
              source_line: 5,
            },
          ],
        ]),
      );
      expect(await store.priors([])).toEqual(new Map());
    });
  });
}
