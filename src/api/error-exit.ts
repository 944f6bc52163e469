// The exit code and one line for an error that ends a command by throwing: how `gbatch` answers it
// (src/cli/main.ts), and what a notification says about a run that could not finish normally.
import { ConfigError } from '../core/config-error.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';
import { JournalBusyError, LockLostError } from '../journal/runner-standing.js';
import { journalOutageLine } from '../journal/outage.js';
import { UsageError } from '../job/options.js';
import { RunSkippedError } from '../pipeline/runners/overlap.js';

export interface KnownExit {
  exitCode: number;
  /** One printable line: the cause. */
  line: string;
  /** What happened, in the words of an ended run. */
  meaning: string;
}

/** The answer to an error gbatch expects (bad configuration, a busy journal, a full disk); undefined for a bug. */
export function knownErrorExit(err: unknown): KnownExit | undefined {
  const message = printable(err instanceof Error ? err.message : String(err));
  // A live runner holding the job is not bad configuration: its own code (73), or 5 when the run chose to skip.
  if (err instanceof RunSkippedError) {
    return {
      exitCode: EXIT_CODE.skipped,
      line: message,
      meaning: `Skipped: ${printable(err.holder)} is still running this job (--if-running skip); nothing was done.`,
    };
  }
  if (err instanceof JournalBusyError)
    return { exitCode: EXIT_CODE.busy, line: message, meaning: `Refused: ${message}; nothing was sent.` };
  // Usage and configuration errors: one line, exit 2, nothing sent. A journal written by a newer gbatch
  // is this installation's configuration to fix (upgrade).
  if (
    err instanceof UsageError ||
    err instanceof ConfigError ||
    (err as { code?: string } | null)?.code === 'GBATCH_SCHEMA_NEWER'
  ) {
    return { exitCode: EXIT_CODE.usage, line: message, meaning: `Refused: ${message}; nothing was sent.` };
  }
  // The journal's disk is full or failing, or its database out of reach: the machine's doing, not a bug; come back
  // later (75).
  const outage = journalOutageLine(err);
  if (outage)
    return { exitCode: EXIT_CODE.inFlight, line: printable(outage), meaning: `Stopped: ${printable(outage)}` };
  // Another runner's ingest of the job held its lock past the wait's bound: nothing was sent; come back later (75).
  if ((err as { code?: string } | null)?.code === 'GBATCH_INGEST_LOCK_WAIT')
    return { exitCode: EXIT_CODE.inFlight, line: message, meaning: `Stopped: ${message}; nothing was sent.` };
  // Another runner owns the journal now: this one stopped without writing; come back later (75).
  if (err instanceof LockLostError)
    return { exitCode: EXIT_CODE.inFlight, line: message, meaning: `Stopped: ${message}` };
  return undefined;
}

export function errorExit(err: unknown): { exitCode: number; meaning: string } {
  const known = knownErrorExit(err);
  if (known) return known;
  const message = printable(err instanceof Error ? err.message : String(err));
  return {
    exitCode: EXIT_CODE.internal,
    meaning: `Internal error (a bug): ${message}. The journal stays consistent; a new run resumes from it.`,
  };
}
