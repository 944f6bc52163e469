// `POST /v1/files`: the multipart body streamed by busboy straight to a temporary file under --data, made
// durable (fsync) and renamed into place; only then does the catalog know the file. A body cut short, too
// large or without a file leaves nothing behind.
import busboy from 'busboy';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiError, ApiFailure, type OpenAiError } from './openai-error.js';

export interface Uploaded {
  path: string;
  filename: string;
  bytes: number;
  purpose: string | undefined;
  /** Every plain field of the form (`expires_after[seconds]`, ...). */
  fields: Record<string, string>;
}

const MAX_FILENAME = 255;

/** Reads the multipart request into `dir/<id>`; throws ApiFailure on a bad or oversized body. */
export async function receiveUpload(
  request: IncomingMessage,
  dir: string,
  id: string,
  maxBytes: number,
): Promise<Uploaded> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: request.headers, limits: { files: 1, fileSize: maxBytes, fields: 8 } });
  } catch (err) {
    throw new ApiFailure(apiError(400, `Expected a multipart/form-data body: ${(err as Error).message}`));
  }
  const temporary = join(dir, `.${id}.part`);
  const fields: Record<string, string> = {};
  let file: { filename: string; written: Promise<number> } | undefined;
  let tooLarge = false;
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || file) {
      stream.resume();
      return;
    }
    stream.on('limit', () => {
      tooLarge = true;
    });
    const written = storePart(stream, createWriteStream(temporary, { flags: 'wx' }));
    // A write that fails (a full disk) while the request still streams in is answered below, once the
    // body is read: until then its rejection is held here, never left unhandled.
    written.catch(() => undefined);
    file = { filename: cleanName(info.filename), written };
  });
  try {
    await Promise.all([pipeline(request, parser), once(parser, 'close')]);
    if (!file) throw new ApiFailure(apiError(400, "Expected a multipart field 'file'", { param: 'file' }));
    const bytes = await file.written;
    if (tooLarge)
      throw new ApiFailure(apiError(413, `The file is larger than this server accepts (${maxBytes} bytes)`));
    await syncFile(temporary);
    // The manifest reader knows a JSONL file by its name.
    const path = join(dir, `${id}.jsonl`);
    await rename(temporary, path);
    await syncFile(dir);
    return { path, filename: file.filename, bytes, purpose: fields.purpose, fields };
  } catch (err) {
    await file?.written.catch(() => undefined);
    await rm(temporary, { force: true });
    if (err instanceof ApiFailure) throw err;
    throw new ApiFailure(writeFailure(err) ?? apiError(400, `The upload did not complete: ${(err as Error).message}`));
  }
}

/**
 * Writes a file part to `out`; resolves with the bytes written once they are all there. When a write fails,
 * the rest of the part is read and dropped, so that the request still streams to its end and gets its answer
 * (the write's error) instead of stalling on a part nobody reads.
 */
function storePart(part: Readable, out: WriteStream): Promise<number> {
  return new Promise((resolve, reject) => {
    let failed: Error | undefined;
    out.on('error', (err) => {
      failed ??= err;
      part.unpipe(out);
      part.resume();
    });
    part.on('error', (err) => {
      failed ??= err;
      out.destroy();
    });
    part.on('end', () => {
      if (failed) reject(failed);
      else out.end();
    });
    out.on('finish', () => resolve(out.bytesWritten));
    part.pipe(out, { end: false });
  });
}

/** A failure of this server's disk (not of the client's body): 507 for a full one, else 500; undefined otherwise. */
function writeFailure(err: unknown): OpenAiError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return apiError(507, 'The server has no room left to store the file; nothing was kept', {
      code: 'insufficient_storage',
    });
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ECONNRESET' && code !== 'EPIPE')
    return apiError(500, `The server could not store the file (${code}); nothing was kept`);
  return undefined;
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The client's file name, as a name only: no folder, no control characters, bounded. */
function cleanName(name: string | undefined): string {
  const base = (name ?? 'upload.jsonl').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_FILENAME);
  return clean === '' ? 'upload.jsonl' : clean;
}
