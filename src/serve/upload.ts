// `POST /v1/files`: the multipart body streamed by busboy straight to a temporary file under --data, made
// durable (fsync) and renamed into place; only then does the catalog know the file. A body cut short, too
// large or without a file leaves nothing behind.
import busboy from 'busboy';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { apiError, ApiFailure } from './openai-error.js';

export interface Uploaded {
  path: string;
  filename: string;
  bytes: number;
  purpose: string | undefined;
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
    const out = createWriteStream(temporary, { flags: 'wx' });
    file = {
      filename: cleanName(info.filename),
      written: pipeline(stream, out).then(() => out.bytesWritten),
    };
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
    return { path, filename: file.filename, bytes, purpose: fields.purpose };
  } catch (err) {
    await file?.written.catch(() => undefined);
    await rm(temporary, { force: true });
    if (err instanceof ApiFailure) throw err;
    throw new ApiFailure(apiError(400, `The upload did not complete: ${(err as Error).message}`));
  }
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
