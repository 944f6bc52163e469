// A final batch's output or error file, made from its job's journal as it is read: the journal is paged
// through and the lines go out in chunks, so a file of any size is never held whole. Its length is the
// same walk, counted instead of sent: the answer can carry an exact Content-Length and honour a Range.
import { jobRows } from './batch-journal.js';
import type { Batch } from './batch-record.js';
import type { ServeContext } from './context.js';
import { errorLine, fileOf, outputLine, type BatchEnd, type LineFile } from './result-lines.js';

/** Characters of lines joined into one chunk: big enough to write efficiently, small enough to never matter. */
const CHUNK_CHARS = 64 * 1024;

/** The file's lines, each with its newline, read from the journal as the consumer pulls. */
async function* derivedLines(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batch: Batch,
  role: LineFile,
): AsyncGenerator<string> {
  const end = batch.status as BatchEnd;
  for await (const row of jobRows(ctx, batch.id)) {
    if (fileOf(row) !== role) continue;
    yield `${role === 'output' ? outputLine(row, batch.id) : errorLine(row, end)}\n`;
  }
}

/** The file's content, chunk by chunk, read from the journal as the consumer pulls. */
export async function* derivedChunks(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batch: Batch,
  role: LineFile,
): AsyncGenerator<Buffer> {
  let lines: string[] = [];
  let chars = 0;
  for await (const line of derivedLines(ctx, batch, role)) {
    lines.push(line);
    chars += line.length;
    if (chars >= CHUNK_CHARS) {
      yield Buffer.from(lines.join(''), 'utf8');
      lines = [];
      chars = 0;
    }
  }
  if (lines.length > 0) yield Buffer.from(lines.join(''), 'utf8');
}

/** The file's length in bytes: the same lines, counted (no buffer is made for them). */
export async function derivedSize(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batch: Batch,
  role: LineFile,
): Promise<number> {
  let bytes = 0;
  for await (const line of derivedLines(ctx, batch, role)) bytes += Buffer.byteLength(line, 'utf8');
  return bytes;
}
