// A snapshot of a PostgreSQL job (../journal-snapshot.ts): a pooled session held in a read-only REPEATABLE
// READ transaction, its snapshot taken before it is handed out; other sessions' commits stay unseen by it.
import type pg from 'pg';
import type { ItemFilter } from '../journal-run.js';
import { SNAPSHOT_ROW_COLUMNS, snapshotRows, type JournalSnapshot, type SnapshotRowData } from '../settled-costs.js';
import type { JobContext } from './job-context.js';
import { checkout } from './pool.js';
import { JobQueries } from './queries.js';
import { settledCosts } from './settled-costs.js';

export async function openSnapshot(pool: pg.Pool, ctx: JobContext): Promise<JournalSnapshot> {
  const client = await checkout(pool);
  try {
    // The transaction's snapshot is taken at its first statement after BEGIN: this one.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query('SELECT 1');
  } catch (err) {
    client.release(true);
    throw err;
  }
  const reads = new JobQueries(client, ctx);
  let open = true;
  return {
    iterate: (filter: Omit<ItemFilter, 'mine'> = {}, pageSize = 2000) =>
      snapshotRows((after) =>
        reads.rowsOf<SnapshotRowData>(`${SNAPSHOT_ROW_COLUMNS}, items.request`, filter, after, pageSize),
      ),
    settledCosts: () => settledCosts(client),
    async close() {
      if (!open) return;
      open = false;
      let broken: Error | undefined;
      await client.query('COMMIT').catch((err: Error) => {
        broken = err;
      });
      client.release(broken ?? false);
    },
  };
}
