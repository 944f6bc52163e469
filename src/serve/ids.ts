// The ids the server hands out: random for uploads and batches; those of files derived from a batch
// (its output, its error file, each video it produced) name the batch, so they are found without a row.
import { randomBytes } from 'node:crypto';

export const newFileId = (): string => `file-${randomBytes(12).toString('hex')}`;
export const newBatchId = (): string => `batch_${randomBytes(12).toString('hex')}`;
export const newRequestId = (): string => `req_${randomBytes(12).toString('hex')}`;

export type DerivedFile =
  { role: 'output' | 'error'; batchId: string } | { role: 'video'; batchId: string; seq: number };

const BATCH_ID = 'batch_[0-9a-f]{24}';
const DERIVED = new RegExp(`^file-(out|err)-(${BATCH_ID})$`);
const VIDEO = new RegExp(`^file-vid-(\\d{1,15})-(${BATCH_ID})$`);

export const isBatchId = (id: string): boolean => new RegExp(`^${BATCH_ID}$`).test(id);
export const outputFileId = (batchId: string): string => `file-out-${batchId}`;
export const errorFileId = (batchId: string): string => `file-err-${batchId}`;
export const videoFileId = (batchId: string, seq: number): string => `file-vid-${seq}-${batchId}`;

export function derivedFile(id: string): DerivedFile | undefined {
  const derived = DERIVED.exec(id);
  if (derived) return { role: derived[1] === 'out' ? 'output' : 'error', batchId: derived[2]! };
  const video = VIDEO.exec(id);
  if (video) return { role: 'video', batchId: video[2]!, seq: Number(video[1]) };
  return undefined;
}
