// Opening a manifest for streaming, with errors that name the file.
import { open } from 'node:fs/promises';
import type { ReadStream } from 'node:fs';

export class ManifestFileError extends Error {
  readonly code = 'GBATCH_MANIFEST_FILE';
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`cannot read manifest ${file}: ${detail}`);
    this.name = 'ManifestFileError';
  }
}

/** A byte stream of the file from `start`; throws a ManifestFileError when it is missing or not a file. */
export async function openManifestStream(file: string, start = 0): Promise<ReadStream> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new ManifestFileError(file, (err as Error).message);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new ManifestFileError(file, 'not a regular file');
  }
  return handle.createReadStream({ start, highWaterMark: 256 * 1024 });
}

/** File-system failures while reading become ManifestFileErrors; anything else is a bug and stays as is. */
export function asManifestFileError(file: string, err: unknown): unknown {
  if (err instanceof ManifestFileError) return err;
  const isSystemError = err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string';
  return isSystemError ? new ManifestFileError(file, err.message) : err;
}
