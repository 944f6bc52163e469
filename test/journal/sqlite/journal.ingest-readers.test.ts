// Readers (`gbatch status`, `report`) keep working while an ingest transaction is open, however many
// rows it holds: the journal stays in WAL mode throughout. A faster first load that wrote the database
// file directly (a rollback journal) was tried and dropped because it locked readers out once its
// dirty pages spilled: `status` during a 1M-row first ingest failed with "database is locked".
import { describe, expect, it } from 'vitest';
import { entry, useTempDir } from '../../helpers/journal-fixtures.js';
import { openSyncJournal, rawDb, IngestSession } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

describe('readers during an ingest', () => {
  it('a second connection reads the journal while an ingest of 100,000 rows (far past the 16 MB page cache) is open', () => {
    const journal = tmp.open();
    const session = new IngestSession(journal);
    const rows = Array.from({ length: 100_000 }, (_, i) => entry(`row-${i}`, { sourceLine: i + 1 }));
    for (let i = 0; i < rows.length; i += 1000) session.add(rows.slice(i, i + 1000));

    const reader = openSyncJournal(journal.file, { readonly: true });
    rawDb(reader).pragma('busy_timeout = 0'); // locked out would mean an error now, not after 5 s
    try {
      expect(reader.counts().pending).toBe(0);
      session.commit();
      expect(reader.counts().pending).toBe(100_000);
    } finally {
      reader.close();
    }
  });
});
