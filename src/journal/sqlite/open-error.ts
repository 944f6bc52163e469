// Why a journal could not be opened, in one place for every command: a path that is not a journal, a
// read-only one, a directory. These are the operator's configuration (exit 2), not bugs.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, describeErrno, errnoOf } from '../../core/config-error.js';

const SQLITE_CAUSES: ReadonlyArray<[RegExp, string]> = [
  [/^SQLITE_NOTADB/, 'not a gbatch journal (not an SQLite database)'],
  [/^SQLITE_CORRUPT/, 'the journal is damaged (SQLite reports it corrupt)'],
  [/^SQLITE_READONLY/, 'the journal is read-only (the file or its directory cannot be written)'],
  [/^SQLITE_CANTOPEN/, 'cannot open it (a directory, a missing directory, or no permission)'],
  [/^SQLITE_PERM|^SQLITE_AUTH/, 'permission denied'],
  [/^SQLITE_FULL/, 'no space left on device'],
  [/^SQLITE_IOERR/, 'input/output error'],
];

/** The ConfigError for a failure to open `file` as a journal, or undefined when it is not one of those. */
export function journalOpenError(file: string, err: unknown): ConfigError | undefined {
  if (err instanceof ConfigError) return err;
  if (isDirectory(file)) return new ConfigError(`${file}: cannot use the journal: it is a directory`, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  if (typeof code === 'string') {
    const unwritable = /^SQLITE_(READONLY|CANTOPEN)/.test(code) ? writeRefusal(file) : undefined;
    if (unwritable) return new ConfigError(`${file}: cannot use the journal: ${unwritable}`, { cause: err });
    for (const [pattern, cause] of SQLITE_CAUSES) {
      if (pattern.test(code)) return new ConfigError(`${file}: cannot use the journal: ${cause}`, { cause: err });
    }
  }
  // A valid SQLite database that is not ours: its tables are not there.
  if (/^no such (table|column)/.test(message))
    return new ConfigError(`${file}: not a gbatch journal (an SQLite database without its tables)`, { cause: err });
  if (errnoOf(err) !== undefined)
    return new ConfigError(`${file}: cannot use the journal: ${describeErrno(err)}`, { cause: err });
  return undefined;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Why the journal or its directory cannot be written (read-only file system, permissions), if it cannot. */
function writeRefusal(file: string): string | undefined {
  for (const path of existsSync(file) ? [file, dirname(file)] : [dirname(file)]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      return `${path === file ? 'the file' : `its directory ${path}`} cannot be written: ${describeErrno(err)}`;
    }
  }
  return undefined;
}
