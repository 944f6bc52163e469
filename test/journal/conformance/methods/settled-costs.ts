// The cost history: settled rows added once by id (a second import adds nothing), read oldest first, by
// every store of the journal (on PostgreSQL, by every job of the database).
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore, SettledCostRecord } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

function settled(id: string, overrides: Partial<SettledCostRecord> = {}): SettledCostRecord {
  return {
    id,
    account: 'account-a',
    model: 'video-fast',
    kind: 'video',
    resolution: '720p',
    finalResolution: '1080p',
    durationS: 5,
    sizeBucket: 0,
    estimateUsd: 0.41,
    boundUsd: 1.06,
    actualUsd: 0.9234567891,
    settledAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function settledCostsConformance(label: string, harness: Harness): void {
  describe(`recordSettled and settledCosts: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
    });

    it('adds the rows it lacks by id, oldest first, and says how many', async () => {
      const before = (await store.settledCosts()).length;
      const chat = settled('c1', {
        kind: 'chat',
        model: 'chat-small',
        resolution: null,
        finalResolution: null,
        durationS: null,
        sizeBucket: 9,
        settledAt: 1_700_000_000_500,
      });
      expect(await store.recordSettled([settled('v1'), chat])).toBe(2);
      expect(
        await store.recordSettled([settled('v1', { actualUsd: 99 }), settled('v2', { settledAt: 1_700_000_000_100 })]),
      ).toBe(1);
      const mine = (await store.settledCosts()).filter((r) => ['v1', 'v2', 'c1'].includes(r.id));
      expect(mine).toEqual([settled('v1'), settled('v2', { settledAt: 1_700_000_000_100 }), chat]);
      expect((await store.settledCosts()).length).toBe(before + 3);
      expect(await store.recordSettled([])).toBe(0);
    });

    it('is read by another store of the journal', async () => {
      await store.recordSettled([settled('shared-1', { actualUsd: 0.5 })]);
      const other = await harness.open({ readonly: true });
      expect((await other.settledCosts()).find((r) => r.id === 'shared-1')).toEqual(
        settled('shared-1', { actualUsd: 0.5 }),
      );
    });
  });
}
