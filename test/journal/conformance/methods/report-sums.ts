// The sums `report` and `status` show.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, invalidRow, row, submit, type Harness } from '../harness.js';

export function reportSumsConformance(label: string, harness: Harness): void {
  describe(`reportSums: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('sums money, tokens and charges for the job and per model and resolution (invalid rows only in the total)', async () => {
      await ingest(store, [
        row('c1', 1, { estimateUsd: 0.02 }),
        row('c2', 2, { model: 'chat-large', estimateUsd: 0.03 }),
        row('c3', 3, { estimateUsd: 0.01 }),
        row('v1', 4, { kind: 'video', estimateUsd: 0.5 }),
        row('v2', 5, { kind: 'video', resolution: '1080p', estimateUsd: 1.25 }),
        invalidRow('bad', 6),
      ]);
      await store.applyTransitions([submit('c1', 0.02), submit('c2', 0.03), submit('v1', 0.5), submit('v2', 1.25)]);
      await store.applyTransitions([
        { id: 'c1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.025, totalTokens: 120 } },
        { id: 'c2', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.03, totalTokens: 80, unmetered: true } },
        { id: 'v1', event: 'accept', patch: { taskId: 't1' } },
      ]);
      await store.annotate('v1', { gatewayChargeUsd: 0.45 }, 'charge');
      const sums = await store.reportSums();
      expect(sums.total).toEqual({
        items: 6,
        settled: 2,
        estimated: sums.total.estimated,
        actual: 0.025 + 0.03,
        settled_estimated: 0.02 + 0.03,
        reserved: 1.75,
        over: sums.total.over,
        gateway: 0.45,
        gateway_n: 1,
        tokens: 200,
        unmetered: 1,
      });
      expect(sums.total.estimated).toBeCloseTo(1.81, 12);
      expect(sums.total.over).toBeCloseTo(0.005, 12);
      expect(sums.groups.map((g) => [g.model, g.resolution, g.items, g.settled, g.tokens, g.gateway_n])).toEqual([
        ['chat-large', null, 1, 1, 80, 0],
        ['chat-small', null, 2, 1, 120, 0],
        ['video-fast', '1080p', 1, 0, null, 0],
        ['video-fast', '720p', 1, 0, null, 1],
      ]);
      for (const value of Object.values(sums.total)) expect(['number', 'object']).toContain(typeof value);
    });
  });
}
