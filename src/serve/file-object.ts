// OpenAI's file object, for an upload and for a file derived from a batch. A field without a value (expires_at of
// a file that never expires, status_details) is left out: OpenAI's schema types it as a number or string, never null.
import type { CatalogFile } from '../journal/index.js';

export interface UploadRecord {
  filename: string;
  bytes: number;
  purpose: string;
  /** Where the upload is on disk (never shown to a client). */
  path: string;
  /** Unix seconds, from the upload's `expires_after`; absent: it never expires. */
  expires_at?: number;
}

export function fileObject(file: CatalogFile): Record<string, unknown> {
  const record = file.record as unknown as UploadRecord;
  const object = shape(file.id, file.createdAt, record.filename, record.bytes, record.purpose);
  return record.expires_at === undefined ? object : { ...object, expires_at: record.expires_at };
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
    filename,
    purpose,
    status: 'processed',
  };
}
