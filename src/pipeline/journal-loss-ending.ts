// How a run ends when its journal stopped being its own: deleted or replaced (the saved copy and the task
// ids the operator needs), or its lock taken by another runner.
import { LockLostError } from '../journal/index.js';
import type { SqliteJournalStore } from '../journal/sqlite/sqlite-store.js';
import { EXIT } from './exit-code.js';
import type { JournalLoss } from './journal-guard.js';
import { journalLossReport, saveJournalCopy } from './journal-rescue.js';
import type { RunResult } from './runner.js';

export type JournalLossReason = 'journal-lost' | 'lock-lost';

export function lockLostLine(statePath: string): string {
  return new LockLostError(statePath).message;
}

/** The end of a run whose journal stopped being its own: the truth for the operator, and the exit code. */
export function endLost(store: SqliteJournalStore, statePath: string, loss: JournalLoss, base: RunResult): RunResult {
  if (loss.kind === 'lock-lost') return endLeaseLost(statePath, base);
  const { journal } = store;
  journal.lock.release(); // the saved copy must not name this (soon dead) process as its runner
  const copy = saveJournalCopy(journal, statePath, Date.now());
  return {
    ...base, exitCode: EXIT.usage, stopReason: 'journal-lost', counts: journal.counts(),
    journalLost: { lines: journalLossReport(journal, statePath, loss.kind, copy), ...('path' in copy ? { savedCopy: copy.path } : {}) },
  };
}

/** The end of a run that lost its standing as the journal's runner (its lock, or on a server its lease). */
export function endLeaseLost(location: string, base: RunResult): RunResult {
  return { ...base, exitCode: EXIT.inFlight, stopReason: 'lock-lost', journalLost: { lines: [lockLostLine(location)] } };
}
