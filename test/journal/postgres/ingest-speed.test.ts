// Ingest throughput into PostgreSQL: 200,000 rows streamed in batches of 64 as the manifest reader
// hands them over (the target later: >= 50,000 rows/s for 1M rows within 300 MB RSS).
import { describe, expect, it } from 'vitest';
import { type IngestEntry, openStore } from '../../../src/journal/index.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const ROWS = 200_000;
const BATCH = 64;

/** Rows made as they are wanted, never all at once: memory measures the writer, not the test. */
function* batches(): Generator<IngestEntry[]> {
  for (let start = 0; start < ROWS; start += BATCH) {
    const batch: IngestEntry[] = [];
    for (let i = start; i < Math.min(ROWS, start + BATCH); i++) {
      const id = `row-${String(i).padStart(7, '0')}`;
      const requestJson = `{"model":"chat-small","messages":[{"role":"user","content":"Summarise item ${i} of the catalogue in two sentences."}],"max_tokens":200}`;
      batch.push({
        id,
        kind: 'chat',
        model: 'chat-small',
        request: null,
        requestJson,
        contentHash: `sha256-${i.toString(16).padStart(16, '0')}`,
        sourceFile: '/data/manifest.jsonl',
        sourceLine: i + 1,
        state: 'pending',
        resolution: null,
        hasReferenceVideo: false,
        estimateUsd: 0.000125,
      });
    }
    yield batch;
  }
}

describe.skipIf(!pgAvailable())('PostgreSQL ingest speed', () => {
  const db = usePgSchema('gbatch_speed');

  it(`ingests ${ROWS.toLocaleString('en')} rows in one transaction`, async () => {
    const store = await openStore(db.url(), { job: 'speed' });
    try {
      let peakRss = process.memoryUsage().rss;
      const started = performance.now();
      const writer = await store.beginIngest();
      let n = 0;
      for (const batch of batches()) {
        await writer.add(batch);
        if (++n % 256 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }
      const summary = await writer.commit();
      const seconds = (performance.now() - started) / 1000;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const rate = Math.round(ROWS / seconds);
      console.log(
        `PostgreSQL ingest: ${ROWS} rows in ${seconds.toFixed(2)} s = ${rate} rows/s; peak RSS ${Math.round(peakRss / 1e6)} MB`,
      );

      expect(summary).toEqual({ inserted: ROWS, unchanged: 0, replaced: 0, conflicts: [] });
      expect((await store.counts()).pending).toBe(ROWS);
      const again = performance.now();
      const writer2 = await store.beginIngest();
      for (const batch of batches()) await writer2.add(batch);
      expect(await writer2.commit()).toEqual({ inserted: 0, unchanged: ROWS, replaced: 0, conflicts: [] });
      console.log(
        `PostgreSQL re-ingest (all unchanged): ${Math.round(ROWS / ((performance.now() - again) / 1000))} rows/s`,
      );
      // A floor far below the target: fails on a pathological plan (a row at a time), not on a busy machine.
      expect(rate).toBeGreaterThan(10_000);
    } finally {
      await store.close();
    }
  }, 120_000);
});
