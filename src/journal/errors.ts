// Every failure the journal reports, on either adapter, with its code and the exit it ends a command with.
// The adapters turn their driver's errors into these at their edge (sqlite/classified-errors.ts, and the
// PostgreSQL store's own checks): nothing outside journal/ reads a driver's error code.
import type { ExitName } from '../core/exit-codes.js';

/** A failure of the journal: `exit` names the row of the exit-code table a command ends with; none is a bug. */
export abstract class JournalError extends Error {
  abstract readonly code: string;
  /** The exit a command that meets it ends with; undefined where the caller decides (a refused write in a run). */
  abstract readonly exit: ExitName | undefined;
}

/** Another live runner holds the job (an SQLite journal's lock, or a single-runner job). */
export class JournalBusyError extends JournalError {
  readonly code: string = 'GBATCH_JOURNAL_BUSY';
  readonly exit: ExitName = 'busy';
  constructor(
    file: string,
    readonly pid: number,
    readonly host: string,
  ) {
    super(
      `${file}: another gbatch run (pid ${pid} on ${host}) is using this journal; wait for it to finish or stop it`,
    );
    this.name = 'JournalBusyError';
  }
}

/** This process held the journal's lock and no longer does: it must not write another row. */
export class LockLostError extends JournalError {
  readonly code = 'GBATCH_LOCK_LOST';
  readonly exit = 'inFlight';
  constructor(file: string) {
    super(
      `this run lost its lock on ${file} (another runner took the journal over, or the lock was removed): it stopped at once and writes nothing more; the journal's current runner carries on`,
    );
    this.name = 'LockLostError';
  }
}

/** A write waited out the busy timeout: another process (a runner stopped in mid-write) holds the write lock. */
export class JournalWriteBusyError extends JournalError {
  readonly code = 'GBATCH_JOURNAL_WRITE_BUSY';
  readonly exit = 'inFlight';
  constructor(location: string, options?: { cause?: unknown }) {
    super(
      `${location}: the journal stayed busy (a runner in mid-write holds it); nothing was changed; try again`,
      options,
    );
    this.name = 'JournalWriteBusyError';
  }
}

/** The journal was written by a newer gbatch: this installation's to fix (upgrade), like bad configuration. */
export class NewerSchemaError extends JournalError {
  readonly code = 'GBATCH_SCHEMA_NEWER';
  readonly exit = 'usage';
  constructor(
    location: string,
    readonly version: number,
    supported: number,
  ) {
    super(
      `${location}: journal schema version ${version} is newer than this gbatch supports (${supported}); upgrade gbatch`,
    );
    this.name = 'NewerSchemaError';
  }
}

/** Another runner's ingest of the job held its lock past the wait's bound: nothing was sent; come back later. */
export class IngestLockWaitError extends JournalError {
  readonly code = 'GBATCH_INGEST_LOCK_WAIT';
  readonly exit = 'inFlight';
  constructor(holder: string, waitedMs: number) {
    super(
      `gave up waiting for the job's ingest lock after ${Math.round(waitedMs / 1000)} s: ${holder} holds it; run again once it has finished or stopped`,
    );
    this.name = 'IngestLockWaitError';
  }
}

/** The runner's lease was lost (swept, or expired): the store fences itself. */
export class BatchLeaseLostError extends JournalError {
  readonly code = 'GBATCH_LEASE_LOST';
  readonly exit = undefined;
  constructor() {
    super('runner lost its standing');
    this.name = 'BatchLeaseLostError';
  }
}

/**
 * A reservation the job's budget cannot take: settled + reserved would pass --budget. Runners sharing a
 * job reserve from one budget; the journal refuses what does not fit, whoever asks.
 */
export class BudgetExceededError extends JournalError {
  readonly code = 'GBATCH_BUDGET_EXCEEDED';
  readonly exit = undefined;
  constructor(
    readonly itemId: string,
    readonly budgetUsd: number,
    readonly heldUsd: number,
    readonly askedUsd: number,
  ) {
    super(
      `item '${itemId}': reserving ${askedUsd} USD would take the job past its budget of ${budgetUsd} USD (${heldUsd} USD settled or reserved)`,
    );
    this.name = 'BudgetExceededError';
  }
}

/** A `submit` on a job the operator cancelled (`gbatch cancel`): the row's request must not leave. */
export class JobCancelledError extends JournalError {
  readonly code = 'GBATCH_JOB_CANCELLED';
  readonly exit = undefined;
  constructor(readonly itemId: string) {
    super(`item '${itemId}': the job was cancelled (gbatch cancel): nothing more is sent`);
    this.name = 'JobCancelledError';
  }
}
