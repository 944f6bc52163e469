// A file's content as an HTTP answer: streamed from disk with its length, one `Range` honoured (206), or
// a derived content (a batch's output or error file) sent from memory the same way.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { byteRange } from './byte-range.js';

export async function diskFileResponse(path: string, range: string | undefined, type: string): Promise<Response> {
  const { size } = await stat(path);
  const wanted = byteRange(range, size);
  if (wanted === 'unsatisfiable') return unsatisfiable(size);
  const { start, end } = wanted ?? { start: 0, end: size - 1 };
  const body =
    size === 0 ? null : (Readable.toWeb(createReadStream(path, { start, end })) as ReadableStream<Uint8Array>);
  return new Response(body, {
    status: wanted ? 206 : 200,
    headers: headers(type, start, end, size, wanted !== undefined),
  });
}

export function memoryFileResponse(content: Buffer, range: string | undefined, type: string): Response {
  const size = content.length;
  const wanted = byteRange(range, size);
  if (wanted === 'unsatisfiable') return unsatisfiable(size);
  const { start, end } = wanted ?? { start: 0, end: size - 1 };
  return new Response(new Uint8Array(content.subarray(start, end + 1)), {
    status: wanted ? 206 : 200,
    headers: headers(type, start, end, size, wanted !== undefined),
  });
}

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
