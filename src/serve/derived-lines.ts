// A final batch's output or error file, made from its job's journal as it is read: the journal is paged
// through and the lines go out in chunks, so a file of any size is never held whole. Its length is the
// same walk, counted instead of sent: the answer can carry an exact Content-Length and honour a Range.
import { jobItems } from './batch-journal.js';
import type { Batch } from './batch-record.js';
import type { ServeContext } from './context.js';
import { errorLine, fileOf, outputLine, type BatchEnd, type LineFile } from './result-lines.js';

/** Lines joined into one chunk: big enough to write efficiently, small enough to never matter in memory. */
const LINES_PER_CHUNK = 16;

/** The file's content, chunk by chunk, read from the journal as the consumer pulls. */
export async function* derivedChunks(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batch: Batch,
  role: LineFile,
): AsyncGenerator<Buffer> {
  const end = batch.status as BatchEnd;
  let lines: string[] = [];
  for await (const item of jobItems(ctx, batch.id)) {
    if (fileOf(item) !== role) continue;
    lines.push(`${role === 'output' ? outputLine(item, batch.id) : errorLine(item, end)}\n`);
    if (lines.length >= LINES_PER_CHUNK) {
      yield Buffer.from(lines.join(''), 'utf8');
      lines = [];
    }
  }
  if (lines.length > 0) yield Buffer.from(lines.join(''), 'utf8');
}

/** The file's length in bytes: the same lines, counted. */
export async function derivedSize(
  ctx: Pick<ServeContext, 'dataDir' | 'journal'>,
  batch: Batch,
  role: LineFile,
): Promise<number> {
  let bytes = 0;
  for await (const chunk of derivedChunks(ctx, batch, role)) bytes += chunk.length;
  return bytes;
}
