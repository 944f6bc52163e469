// A file's content as an HTTP answer: streamed from disk or object storage with its length, one `Range`
// honoured (206), or a derived content (a batch's output or error file) streamed the same way as it is made.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { byteRange } from './byte-range.js';

export async function diskFileResponse(path: string, range: string | undefined, type: string): Promise<Response> {
  const { size } = await stat(path);
  return rangedResponse(
    size,
    (start, end) => Readable.toWeb(createReadStream(path, { start, end })) as ReadableStream<Uint8Array>,
    range,
    type,
  );
}

/** A stored content of `size` bytes, of which `open` streams bytes start..end (inclusive), one Range honoured. */
export function rangedResponse(
  size: number,
  open: (start: number, end: number) => ReadableStream<Uint8Array>,
  range: string | undefined,
  type: string,
): Response {
  const wanted = byteRange(range, size);
  if (wanted === 'unsatisfiable') return unsatisfiable(size);
  const { start, end } = wanted ?? { start: 0, end: size - 1 };
  return new Response(size === 0 ? null : open(start, end), {
    status: wanted ? 206 : 200,
    headers: headers(type, start, end, size, wanted !== undefined),
  });
}

/**
 * A content made as it is sent (`chunks()` starts it anew), whose length `size` was counted first. Should
 * the content no longer match that length when sent (the journal changed in between), the answer is cut
 * short with an error rather than sent wrong: the client sees a failed transfer, never a wrong file.
 */
export function streamedFileResponse(
  size: number,
  chunks: () => AsyncIterable<Buffer>,
  range: string | undefined,
  type: string,
): Response {
  return rangedResponse(
    size,
    (start, end) => Readable.toWeb(Readable.from(window(chunks(), start, end, size))) as ReadableStream<Uint8Array>,
    range,
    type,
  );
}

/** Bytes start..end (inclusive) of chunks that must add up to `size`: an error as soon as they do not. */
async function* window(
  chunks: AsyncIterable<Buffer>,
  start: number,
  end: number,
  size: number,
): AsyncGenerator<Buffer> {
  let at = 0;
  for await (const chunk of chunks) {
    if (at + chunk.length > size) throw changed('longer');
    const from = Math.max(0, start - at);
    const to = Math.min(chunk.length, end + 1 - at);
    at += chunk.length;
    if (to > from) yield chunk.subarray(from, to);
    if (at > end) return;
  }
  throw changed('shorter');
}

const changed = (how: string): Error =>
  new Error(`the content changed while it was sent: it is ${how} than its announced length`);

function headers(type: string, start: number, end: number, size: number, partial: boolean): Record<string, string> {
  return {
    'content-type': type,
    'accept-ranges': 'bytes',
    'content-length': String(Math.max(0, end - start + 1)),
    ...(partial ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  };
}

function unsatisfiable(size: number): Response {
  return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } });
}
