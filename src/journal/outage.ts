// The journal out of reach mid-run, on either adapter: SQLite's disk full or failing, or the PostgreSQL
// server gone (restarting, its sessions ended, the database dropped). The machine's doing, not a bug: the
// run stops with one line naming the cause and exit 75 (run again once the journal is back), never 70.
import { isConnectionLoss } from './postgres/connection-loss.js';
import { journalStorageFailure, journalStorageLine } from './sqlite/storage-failure.js';

const CAUSE_CHARS = 200;

/** The one line for a journal out of reach, or undefined when `err` is something else. */
export function journalOutageLine(err: unknown): string | undefined {
  const storage = journalStorageFailure(err);
  if (storage) return journalStorageLine(storage);
  if (!isConnectionLoss(err)) return undefined;
  const { code } = err as { code?: unknown };
  const cause = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().slice(0, CAUSE_CHARS);
  return (
    `the journal's database could not be reached (${cause}${typeof code === 'string' ? `, ${code}` : ''}) after retrying: nothing more was sent. ` +
    'Run again once the database is back: a row whose answer could not be recorded becomes uncertain and waits for `gbatch resolve`.'
  );
}
