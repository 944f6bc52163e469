// The job's event log read in pages (eventLog() over eventLogPage).
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { eventLog, type JournalStore } from '../../../../src/journal/index.js';
import { collect, fourRows, ingest, submit, type Harness } from '../harness.js';

export function eventLogPageConformance(label: string, harness: Harness): void {
  describe(`eventLogPage: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('the event log reads every transition of the job in seq order, in pages, with item, time and detail', async () => {
      await store.applyTransitions([submit('chat')]);
      clock.tick(7);
      await store.applyTransitions([
        submit('video', 0.5),
        { id: 'video', event: 'accept', patch: { taskId: 'task-1' }, detail: { taskId: 'task-1', attempt: 1 } },
      ]);
      clock.tick(3);
      await store.applyTransitions([{ id: 'chat', event: 'retry', detail: { attempt: 1, delayMs: 50, status: 429 } }]);
      const t0 = clock.now() - 10;
      const all = await collect(eventLog(store, 2));
      expect(all.map(({ seq: _seq, ...rest }) => rest)).toEqual([
        { itemId: 'chat', at: t0, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
        { itemId: 'video', at: t0 + 7, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
        {
          itemId: 'video',
          at: t0 + 7,
          event: 'accept',
          from: 'submitting',
          to: 'submitted',
          detail: { taskId: 'task-1', attempt: 1 },
        },
        {
          itemId: 'chat',
          at: t0 + 10,
          event: 'retry',
          from: 'submitting',
          to: 'pending',
          detail: { attempt: 1, delayMs: 50, status: 429 },
        },
      ]);
      const seqs = all.map((e) => e.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(4);
      expect(await store.eventLogPage(seqs[1]!, 1)).toEqual([all[2]]);
      expect(await store.eventLogPage(seqs[3]!, 10)).toEqual([]);
    });
  });
}
