// What every journal adapter shares about a runner's standing: how often it beats, when it counts as
// gone, and the errors for a journal in use elsewhere and for a runner that lost it.
import { positiveKnob } from '../core/test-knob.js';

/** A live runner refreshes its heartbeat this often. */
export const HEARTBEAT_MS = 2_000;
/** A lock of another host whose heartbeat is this old is abandoned (on this host, the pid decides). */
export const STALE_AFTER_MS = 30_000;

/** The stale threshold; GBATCH_LOCK_STALE_MS overrides it (a test knob: tests cannot wait 30 s). */
export function staleAfterMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'GBATCH_LOCK_STALE_MS', STALE_AFTER_MS);
}

export class JournalBusyError extends Error {
  readonly code = 'GBATCH_JOURNAL_BUSY';
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
export class LockLostError extends Error {
  readonly code = 'GBATCH_LOCK_LOST';
  constructor(file: string) {
    super(
      `this run lost its lock on ${file} (another runner took the journal over, or the lock was removed): it stopped at once and writes nothing more; the journal's current runner carries on`,
    );
    this.name = 'LockLostError';
  }
}
