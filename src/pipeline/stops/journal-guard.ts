// Is the journal this run writes still the file at its path, and still ours? A journal deleted or
// replaced under a live run would take every task id with it (the run writes on into an unlinked
// file); a lock taken over means another runner now owns the rows. Either way the run must stop.
import { rmSync, statSync } from 'node:fs';
import type { UnrecordedOutcome } from '../ending/unrecorded.js';

export interface FileIdentity { dev: number; ino: number }

export type JournalLoss =
  | { kind: 'deleted' }
  | { kind: 'replaced' }
  | { kind: 'lock-lost' };

export function fileIdentity(path: string): FileIdentity | undefined {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** What became of the file opened with identity `opened`, given what its path holds now. */
export function compareIdentity(opened: FileIdentity, now: FileIdentity | undefined): 'deleted' | 'replaced' | undefined {
  if (!now) return 'deleted';
  return now.dev === opened.dev && now.ino === opened.ino ? undefined : 'replaced';
}

/** Between two checks on the submission path at most this much time passes unchecked (the heartbeat checks too). */
const CLAIM_CHECK_MS = 50;


export class JournalGuard {
  private readonly opened: FileIdentity | undefined;
  private readonly unrecordedOutcomes: UnrecordedOutcome[] = [];
  /** The journal's WAL and shared-memory files as opened: SQLite finds them by name, next to the path. */
  private readonly sidecars: Array<{ path: string; identity: FileIdentity | undefined }>;
  private loss: JournalLoss | undefined;
  private lastCheck = 0;

  /** `path`: the journal's file; undefined for a journal that is not a file (a database server): only a lost lease is watched then. */
  constructor(private readonly path: string | undefined, private readonly onLoss: (loss: JournalLoss) => void) {
    this.opened = path === undefined ? undefined : fileIdentity(path);
    this.sidecars = path === undefined ? [] : ['-wal', '-shm'].map((suffix) => ({ path: `${path}${suffix}`, identity: fileIdentity(`${path}${suffix}`) }));
  }

  /**
   * After the journal was deleted or replaced and closed: its own WAL and shared-memory files, still
   * under the path's name, are removed. Left there, SQLite would replay this journal's WAL into whatever
   * file is put at the path next (the saved copy moved back, or the replacement): a corrupt journal.
   */
  removeOwnSidecars(): void {
    for (const { path, identity } of this.sidecars) {
      if (identity && compareIdentity(identity, fileIdentity(path)) === undefined) rmSync(path, { force: true });
    }
  }

  get lost(): JournalLoss | undefined {
    return this.loss;
  }

  /** One stat of the path. */
  check(): void {
    if (this.loss || !this.opened) return;
    this.lastCheck = performance.now();
    let verdict: 'deleted' | 'replaced' | undefined;
    try {
      verdict = compareIdentity(this.opened, fileIdentity(this.path!));
    } catch {
      return; // the path cannot be read just now (EACCES, EIO): not proof of loss; the next check looks again
    }
    if (verdict) this.lose({ kind: verdict });
  }

  /** As check(), at most every CLAIM_CHECK_MS: cheap enough before every claim. */
  checkSoon(): void {
    if (performance.now() - this.lastCheck >= CLAIM_CHECK_MS) this.check();
  }

  /** A task id or an answer the journal refused (this run lost its standing): kept for the run's last lines, never dropped. */
  keepUnrecorded(outcome: UnrecordedOutcome): void {
    this.unrecordedOutcomes.push(outcome);
  }

  get unrecorded(): readonly UnrecordedOutcome[] {
    return this.unrecordedOutcomes;
  }

  lose(loss: JournalLoss): void {
    if (this.loss) return;
    this.loss = loss;
    this.onLoss(loss);
  }
}
