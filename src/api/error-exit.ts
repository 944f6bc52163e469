// The exit code and one line for an error that ends a run by throwing, as src/cli/main.ts answers it:
// what a notification says about a run that could not finish normally.
import { ConfigError } from '../core/config-error.js';
import { JournalBusyError, LockLostError } from '../journal/sqlite/lock.js';
import { journalStorageFailure, journalStorageLine } from '../journal/sqlite/storage-failure.js';
import { UsageError } from '../cli/options.js';

export function errorExit(err: unknown): { exitCode: number; meaning: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof JournalBusyError || (err as { code?: string } | null)?.code === 'GBATCH_SCHEMA_NEWER') {
    return { exitCode: 2, meaning: `Refused: ${message}; nothing was sent.` };
  }
  const storage = journalStorageFailure(err);
  if (storage) return { exitCode: 75, meaning: `Stopped: ${journalStorageLine(storage)}` };
  if (err instanceof LockLostError) return { exitCode: 75, meaning: `Stopped: ${message}` };
  return { exitCode: 70, meaning: `Internal error (a bug): ${message}. The journal stays consistent; a new run resumes from it.` };
}
