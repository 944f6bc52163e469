// A run that cannot write its outputs (disk full, read-only, no permission) stops in order instead of
// crashing: no new submission leaves, requests in flight finish and their answers are journaled (an
// answer received stays `succeeded`, never `uncertain`), polls and downloads stop, and the run ends
// with the cause in one line: exit 75 when space may come back, 2 when the path is plainly wrong.
import { describeErrno } from '../../core/config-error.js';
import { ObjectStoreError } from '../../io/s3/store-errors.js';
import { log, type LaneContext } from '../context.js';
import { EXIT } from '../exit-code.js';
import { EXIT_CODE } from '../../core/exit-codes.js';

/** Errno codes of a write that failed because of where it was written, not because of a bug. */
const RETRY_LATER = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN', 'ENOMEM']);
const CONFIGURATION = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EISDIR',
  'ENOENT',
  'ENAMETOOLONG',
  'ELOOP',
  'EEXIST',
]);

export interface OutputFailure {
  path: string;
  code: string;
  /** One line: the path and the cause in words. */
  message: string;
  /** 75: free space (or wait) and run again; 2: fix the path or its permissions. */
  exitCode: typeof EXIT_CODE.inFlight | typeof EXIT_CODE.usage;
}

/** The file system error (with its errno code) behind `err`, looking through wrapping errors. */
export function fileSystemCause(err: unknown): { code: string } | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const { code, syscall } = current as { code?: unknown; syscall?: unknown };
    if (typeof code === 'string' && typeof syscall === 'string' && (RETRY_LATER.has(code) || CONFIGURATION.has(code)))
      return { code };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export class OutputStop {
  private first: OutputFailure | undefined;

  constructor(private readonly ctx: LaneContext) {}

  get failure(): OutputFailure | undefined {
    return this.first;
  }

  get stopped(): boolean {
    return this.first !== undefined;
  }

  /**
   * When `err` is a failed write of `path`, stops the run's submissions, polls and downloads and
   * returns true; otherwise (a bug, a network error) returns false and leaves the error to the caller.
   */
  handle(err: unknown, path: string): boolean {
    const cause = fileSystemCause(err);
    if (!cause) return false;
    if (this.first) return true;
    const exitCode = CONFIGURATION.has(cause.code) ? EXIT_CODE.usage : EXIT_CODE.inFlight;
    // Object storage names its own cause (the server's refusal), which an errno's words would hide.
    const stored = storeErrorIn(err);
    const message = stored ? `cannot write ${stored.message}` : `cannot write ${path}: ${describeErrno(err)}`;
    this.first = { path, code: cause.code, message, exitCode };
    log(this.ctx, `${message}; stopping: no new submissions, answers in flight are kept in ${this.ctx.voice.journal}`);
    this.ctx.submitStop.abort('output');
    this.ctx.stop.abort('output');
    return true;
  }
}

/**
 * After a failed write the outputs are behind the journal, so the run is never "done" (0/1): 75 to come
 * back once there is room, 2 for a path that is plainly wrong; an uncertain row (4) or the budget (3) still
 * outranks 75.
 */
export function outputExitCode(code: number, failure: OutputFailure | undefined): number {
  if (!failure) return code;
  if (failure.exitCode === EXIT.usage) return EXIT.usage;
  return code === EXIT.ok || code === EXIT.someFailed ? EXIT.inFlight : code;
}

function storeErrorIn(err: unknown): ObjectStoreError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof ObjectStoreError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
