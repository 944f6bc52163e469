// A row the server refuses in the middle of an ingest (PostgreSQL text holds no NUL character) fails
// the pass, leaves nothing behind, and leaves the store usable.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/journal/index.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row } from '../conformance/harness.js';

describe.skipIf(!pgAvailable())('PostgreSQL ingest refused by the server', () => {
  const db = usePgSchema('gbatch_ingfail');

  it('fails the whole pass and rolls it back; the next pass works', async () => {
    const store = await openStore(db.url(), { job: 'nul' });
    try {
      const rows = Array.from({ length: 500 }, (_, i) => row(`r${i}`, i + 1));
      rows[300] = row('bad', 301, { request: null, requestJson: '{"prompt":"a\u0000b"}' });
      await expect(ingest(store, rows)).rejects.toThrow(/0x00|null character|invalid byte sequence/i);
      expect((await store.counts()).pending).toBe(0);
      expect(await ingest(store, [row('ok', 1)])).toEqual({ inserted: 1, unchanged: 0, replaced: 0, conflicts: [] });
    } finally {
      await store.close();
    }
  });
});
