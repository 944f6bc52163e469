// The manifests an ingest read whole (IngestWriter.recordManifests): the last ingest's set.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, ingestRun, row, rowsOf, type Harness } from '../harness.js';

export function manifestRecordsConformance(label: string, harness: Harness): void {
  describe(`manifestRecords: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('records manifests with the rows, and answers only for the paths it has', async () => {
      await ingest(store, [row('a', 1)], [{ path: '/m/a.jsonl', bytes: 120, sha256: 'f00d', rows: 1 }]);
      expect(await store.manifestRecords(['/m/a.jsonl', '/m/other.jsonl'])).toEqual(
        new Map([['/m/a.jsonl', { bytes: 120, sha256: 'f00d', rows: 1 }]]),
      );
      await ingest(store, [row('a', 1)], [{ path: '/m/a.jsonl', bytes: 130, sha256: 'beef', rows: 2 }]);
      expect(await store.manifestRecords(['/m/a.jsonl'])).toEqual(
        new Map([['/m/a.jsonl', { bytes: 130, sha256: 'beef', rows: 2 }]]),
      );
    });

    it("the manifests' records are the last ingest's: those it did not read go", async () => {
      await ingestRun(store, rowsOf('a'), [
        { path: '/m/a.jsonl', bytes: 1, sha256: 'a', rows: 1 },
        { path: '/m/b.jsonl', bytes: 2, sha256: 'b', rows: 0 },
      ]);
      expect([...(await store.manifestRecords()).keys()].sort()).toEqual(['/m/a.jsonl', '/m/b.jsonl']);
      await ingestRun(store, rowsOf('a'), [{ path: '/m/a.jsonl', bytes: 1, sha256: 'a', rows: 1 }]);
      expect(await store.manifestRecords()).toEqual(new Map([['/m/a.jsonl', { bytes: 1, sha256: 'a', rows: 1 }]]));
      expect(await store.manifestRecords(['/m/b.jsonl'])).toEqual(new Map());
    });
  });
}
