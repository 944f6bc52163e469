// A fenced store writes nothing more.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, submit, type Harness } from '../harness.js';

export function fenceConformance(label: string, harness: Harness): void {
  describe(`fence: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    beforeEach(async () => {
      await ingest(store, fourRows());
    });

    it('a fenced store writes nothing more', async () => {
      const reason = new Error('fenced for the test');
      store.fence(reason);
      await expect(store.applyTransitions([submit('chat')])).rejects.toBe(reason);
      await expect(store.markStored(['chat'], 'r', {})).rejects.toBe(reason);
      await expect(store.annotate('chat', { taskId: 'x' }, 'n')).rejects.toBe(reason);
      expect((await store.get('chat'))!.state).toBe('pending');
    });
  });
}
