// The exit code and one line for an error that ends a command by throwing: how `gbatch` answers it
// (src/cli/main.ts), and what a notification says about a run that could not finish normally.
import { ConfigError } from '../core/config-error.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';

import { journalOutageLine } from '../journal/outage.js';
import { UsageError } from '../job/options.js';
import { RunSkippedError } from '../core/run-skipped-error.js';
import { JournalError } from '../journal/errors.js';

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
  // The journal's own failures carry their exit: a busy journal (73), one written by a newer gbatch (2: this
  // installation's to fix), a lost lock or an ingest wait that ran out (75: come back later).
  if (err instanceof JournalError && err.exit !== undefined) {
    const meaning = err.exit === 'inFlight' ? `Stopped: ${message}` : `Refused: ${message}; nothing was sent.`;
    return { exitCode: EXIT_CODE[err.exit], line: message, meaning };
  }
  // Usage and configuration errors: one line, exit 2, nothing sent.
  if (err instanceof UsageError || err instanceof ConfigError)
    return { exitCode: EXIT_CODE.usage, line: message, meaning: `Refused: ${message}; nothing was sent.` };
  // The journal's disk is full or failing, or its database out of reach: the machine's doing, not a bug; come back
  // later (75).
  const outage = journalOutageLine(err);
  if (outage)
    return { exitCode: EXIT_CODE.inFlight, line: printable(outage), meaning: `Stopped: ${printable(outage)}` };
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
