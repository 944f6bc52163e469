// Is the journal this process opened still the file at its path? A journal deleted or replaced under a
// live run would take every task id with it (the run writes on into an unlinked file). Its WAL and
// shared-memory files are remembered as opened: SQLite finds them by name, next to the path.
import { rmSync, statSync } from 'node:fs';
import type { JournalFileLoss } from '../store.js';

export interface FileIdentity {
  dev: number;
  ino: number;
}

export function fileIdentity(path: string): FileIdentity | undefined {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw err;
  }
}

/** What became of the file opened with identity `opened`, given what its path holds now. */
export function compareIdentity(opened: FileIdentity, now: FileIdentity | undefined): JournalFileLoss | undefined {
  if (!now) return 'deleted';
  return now.dev === opened.dev && now.ino === opened.ino ? undefined : 'replaced';
}

export class FileWatch {
  private readonly opened: FileIdentity | undefined;
  private readonly sidecars: Array<{ path: string; identity: FileIdentity | undefined }>;
  private loss: JournalFileLoss | undefined;

  constructor(private readonly path: string) {
    this.opened = fileIdentity(path);
    this.sidecars = ['-wal', '-shm'].map((suffix) => ({
      path: `${path}${suffix}`,
      identity: fileIdentity(`${path}${suffix}`),
    }));
  }

  /** One stat of the path; a loss once seen stays. */
  lost(): JournalFileLoss | undefined {
    if (this.loss || !this.opened) return this.loss;
    try {
      this.loss = compareIdentity(this.opened, fileIdentity(this.path));
    } catch {
      return undefined; // the path cannot be read just now (EACCES, EIO): not proof of loss; the next check looks again
    }
    return this.loss;
  }

  /**
   * After the journal was lost and closed: its own WAL and shared-memory files, still under the path's
   * name, are removed. Left there, SQLite would replay this journal's WAL into whatever file is put at
   * the path next (the saved copy moved back, or the replacement): a corrupt journal.
   */
  removeOwnSidecars(): void {
    if (!this.loss) return;
    for (const { path, identity } of this.sidecars) {
      if (identity && compareIdentity(identity, fileIdentity(path)) === undefined) rmSync(path, { force: true });
    }
  }
}
