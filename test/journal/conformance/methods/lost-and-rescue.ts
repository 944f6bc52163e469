// A journal lost under its runner (a file deleted or replaced) is seen at once and saved whole with the rows the
// operator must know; a journal that cannot be lost so (a database) never says it was, and has nothing to rescue.
import { existsSync } from 'node:fs';
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { openQueries, type JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, type Harness } from '../harness.js';

export function lostAndRescueConformance(label: string, harness: Harness): void {
  describe(`membership.lost and rescue: ${label}`, () => {
    let store: JournalStore;

    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await ingest(store, [row('a', 1), row('b', 2, { kind: 'video' }), row('c', 3)]);
      await store.membership.acquire();
      await store.applyTransitions([submit('a'), submit('b')]);
      await store.applyTransitions([{ id: 'b', event: 'accept', patch: { taskId: 'task-b' } }]);
    });

    it('a journal in place is not lost and has nothing to rescue', async () => {
      expect(store.membership.lost()).toBeUndefined();
      expect(await store.rescue()).toBeUndefined();
    });

    it.skipIf(!harness.loseJournal)(
      'a journal deleted under its runner is lost; the rescue saves it whole beside the path, with its sent and unsure rows',
      async () => {
        await harness.loseJournal!('deleted');
        expect(store.membership.lost()).toBe('deleted');
        const rescue = (await store.rescue())!;
        expect(rescue.sent).toEqual({ rows: [{ id: 'b', taskId: 'task-b' }], total: 1 });
        expect(rescue.unsure).toEqual({ ids: ['a'], total: 1 });
        const saved = (rescue.copy as { path: string }).path;
        expect(saved.startsWith(`${store.location}.recovered-`)).toBe(true);
        const copy = await openQueries(saved, { job: harness.jobName() });
        try {
          expect(await copy.counts()).toMatchObject({ pending: 1, submitting: 1, submitted: 1 });
          expect(await copy.runners()).toEqual([]); // the lock let go first: the copy names no runner
        } finally {
          await copy.close();
        }
        await store.close();
        // The lost journal's own side files would be replayed into whatever is put at the path next.
        expect(existsSync(`${store.location}-wal`)).toBe(false);
        expect(existsSync(`${store.location}-shm`)).toBe(false);
      },
    );

    it.skipIf(!harness.loseJournal)(
      'a journal replaced under its runner is lost as replaced; the replacement is left alone',
      async () => {
        await harness.loseJournal!('replaced');
        expect(store.membership.lost()).toBe('replaced');
        expect(store.membership.lost()).toBe('replaced');
        await store.close();
        expect(existsSync(store.location)).toBe(true);
      },
    );
  });
}
