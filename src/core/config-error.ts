// Bad configuration found by the program itself (a path that cannot be used, a journal that is not one):
// answered like a usage error, one line and exit 2, never as a bug.

export class ConfigError extends Error {
  readonly code = 'GBATCH_CONFIG';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  ENOENT: 'no such file or directory',
  EEXIST: 'already exists and is not a directory',
  EIO: 'input/output error',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EFBIG: 'file too large',
  EBUSY: 'resource busy',
};

/** The errno code of an error (or of its causes), if it has one. */
export function errnoOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** "no space left on device (ENOSPC)": the cause of a file system error in words, with its code. */
export function describeErrno(err: unknown): string {
  const code = errnoOf(err);
  if (code === undefined) return err instanceof Error ? err.message : String(err);
  return `${ERRNO_WORDS[code] ?? 'system error'} (${code})`;
}
