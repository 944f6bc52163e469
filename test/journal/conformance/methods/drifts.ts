// The group ratios the job's runners saw: one per account and model, the largest kept, read by every store of the
// job (and with the job's money: jobMoney).
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { SeenDrift } from '../../../../src/core/seen-drift.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

/** A video-mini row at 720p (table $0.18417168) charged at `ratio` times it. */
function seen(overrides: Partial<SeenDrift> = {}): SeenDrift {
  const ratio = overrides.ratio ?? 2;
  return {
    account: 'account-a',
    model: 'video-mini',
    itemId: 'v1',
    totalTokens: 108_900,
    resolution: '720p',
    finalResolution: '720p',
    hasReferenceVideo: false,
    tableUsd: 0.18417168,
    gatewayChargeUsd: 0.18417168 * ratio,
    ratio,
    ...overrides,
  };
}

export function driftsConformance(label: string, harness: Harness): void {
  describe(`recordDrift and drifts: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
    });

    it('keeps the largest ratio per account and model: a lower one never replaces it, a higher one does', async () => {
      expect(await store.drifts()).toEqual([]);
      await store.recordDrift(seen({ itemId: 'v1', ratio: 2 }));
      expect(await store.drifts()).toEqual([seen({ itemId: 'v1', ratio: 2 })]);
      await store.recordDrift(seen({ itemId: 'v2', ratio: 1.5, resolution: '1080p', hasReferenceVideo: true }));
      expect(await store.drifts()).toEqual([seen({ itemId: 'v1', ratio: 2 })]);
      await store.recordDrift(seen({ itemId: 'v3', ratio: 3, finalResolution: null, totalTokens: 5_000_000_000 }));
      expect(await store.drifts()).toEqual([
        seen({ itemId: 'v3', ratio: 3, finalResolution: null, totalTokens: 5_000_000_000 }),
      ]);
    });

    it('keeps other models and accounts apart, in account and model order; an infinite ratio stays infinite', async () => {
      await store.recordDrift(seen({ account: 'account-b', model: 'video-pro', itemId: 'p1', ratio: 1.25 }));
      await store.recordDrift(
        seen({ model: 'video-pro', itemId: 'p2', tableUsd: 0, ratio: Infinity, gatewayChargeUsd: 0.5 }),
      );
      await store.recordDrift(seen({ itemId: 'v1', ratio: 2 }));
      expect(await store.drifts()).toEqual([
        seen({ itemId: 'v1', ratio: 2 }),
        seen({ model: 'video-pro', itemId: 'p2', tableUsd: 0, ratio: Infinity, gatewayChargeUsd: 0.5 }),
        seen({ account: 'account-b', model: 'video-pro', itemId: 'p1', ratio: 1.25 }),
      ]);
      await store.recordDrift(seen({ model: 'video-pro', itemId: 'p3', ratio: 9 }));
      expect((await store.drifts()).map((d) => d.itemId)).toEqual(['v1', 'p2', 'p1']);
    });

    it("is read by another store of the job, and with the job's money", async () => {
      await store.recordDrift(seen({ ratio: 2.5 }));
      const other = await harness.open();
      expect(await other.drifts()).toEqual([seen({ ratio: 2.5 })]);
      expect((await other.coordination.jobMoney()).drifts).toEqual([seen({ ratio: 2.5 })]);
    });
  });
}
