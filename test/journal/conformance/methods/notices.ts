// Which runner sends each of the job's notifications: for a job of one runner, that runner, once per notice.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

export function noticesConformance(label: string, harness: Harness): void {
  describe(`notices: ${label}`, () => {
    let store: JournalStore;

    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      await store.membership.acquire();
    });

    it('the only runner claims each notice once, speaks for the job at its end, and a new session claims again', async () => {
      await store.notices.begin();
      expect(await store.notices.claim('budget-50')).toBe(true);
      expect(await store.notices.claim('budget-50')).toBe(false);
      expect(await store.notices.claim('budget-80')).toBe(true);
      expect(await store.notices.end()).toBe(true);
      await store.notices.begin();
      expect(await store.notices.claim('budget-50')).toBe(true);
    });
  });
}
