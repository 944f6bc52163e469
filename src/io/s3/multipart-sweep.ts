// The multipart uploads a store leaves while it writes, and what a crash leaves of them: found by listing,
// aborted by key, so no part is left billed under the prefix.
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
} from '@aws-sdk/client-s3';
import { PARTIAL_SUFFIX, type S3Place } from './s3-place.js';
import { s3FailureOf } from './store-errors.js';

export interface UnfinishedUpload {
  key: string;
  uploadId: string;
}

/** Uploads under `prefix`; none on a server that keeps no list of them (s3rver answers 501). */
export async function listUploads({ client, bucket }: S3Place, prefix: string): Promise<UnfinishedUpload[]> {
  const found: UnfinishedUpload[] = [];
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client
      .send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix,
          ...(keyMarker !== undefined ? { KeyMarker: keyMarker } : {}),
          ...(uploadIdMarker !== undefined ? { UploadIdMarker: uploadIdMarker } : {}),
        }),
      )
      .catch((err: unknown): ListMultipartUploadsCommandOutput => {
        if (s3FailureOf(err).status === 501) return { $metadata: {}, Uploads: [], IsTruncated: false };
        throw err;
      });
    for (const upload of page.Uploads ?? [])
      if (upload.Key !== undefined && upload.UploadId !== undefined)
        found.push({ key: upload.Key, uploadId: upload.UploadId });
    if (!page.IsTruncated) return found;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}

/** Aborts the multipart uploads of exactly `key` (a crashed attempt's), so no part is left behind. */
export async function abortUploadsOf(place: S3Place, key: string): Promise<void> {
  for (const upload of await listUploads(place, key)) {
    if (upload.key !== key) continue;
    await place.client.send(
      new AbortMultipartUploadCommand({ Bucket: place.bucket, Key: key, UploadId: upload.uploadId }),
    );
  }
}

/**
 * Removes what attempts at `key` left: uploads of the key (a direct upload, or a copy in parts) and of its
 * partial key, and the partial object. The final object itself, if one was completed, is left.
 */
export async function clearAttempts(place: S3Place, key: string): Promise<void> {
  await abortUploadsOf(place, key);
  await abortUploadsOf(place, `${key}${PARTIAL_SUFFIX}`);
  await place.client.send(new DeleteObjectCommand({ Bucket: place.bucket, Key: `${key}${PARTIAL_SUFFIX}` }));
}
