// OpenAI's file object, for an upload and for a file derived from a batch.
import type { CatalogFile } from '../journal/index.js';

export interface UploadRecord {
  filename: string;
  bytes: number;
  purpose: string;
  /** Where the upload is on disk (never shown to a client). */
  path: string;
}

export function fileObject(file: CatalogFile): Record<string, unknown> {
  const record = file.record as unknown as UploadRecord;
  return shape(file.id, file.createdAt, record.filename, record.bytes, record.purpose);
}

export function shape(
  id: string,
  createdAt: number,
  filename: string,
  bytes: number,
  purpose: string,
): Record<string, unknown> {
  return {
    id,
    object: 'file',
    bytes,
    created_at: createdAt,
    expires_at: null,
    filename,
    purpose,
    status: 'processed',
    status_details: null,
  };
}
