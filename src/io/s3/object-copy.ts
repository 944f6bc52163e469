// A server-side copy of a completed object to its final key, with metadata set on the copy (metadata is
// fixed when an object is made). S3 copies at most 5 GiB in one CopyObject; a larger object is copied in
// ranges (UploadPartCopy) into a multipart upload on the final key, which is invisible until completed and
// aborted on any failure: the final key holds the whole copy or nothing, as with CopyObject.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import type { S3Place } from './s3-place.js';

export interface CopyLimits {
  /** The largest object copied by one CopyObject; a larger one is copied in parts. */
  singleCopyBytes: number;
  /** Bytes per copied part (raised when the object would need more than S3's 10,000 parts). */
  partBytes: number;
}

/** S3's own limit for one CopyObject (5 GiB); 512 MiB parts make at most 100 parts for a 50 GB video. */
export const S3_COPY_LIMITS: CopyLimits = { singleCopyBytes: 5 * 1024 ** 3, partBytes: 512 * 1024 ** 2 };
const MAX_PARTS = 10_000;
const PARTS_IN_FLIGHT = 4;

export interface ObjectCopy {
  sourceKey: string;
  key: string;
  bytes: number;
  metadata: Record<string, string>;
  contentType: string;
}

export async function copyWithMetadata(place: S3Place, copy: ObjectCopy, limits: CopyLimits): Promise<void> {
  const source = `${place.bucket}/${copy.sourceKey.split('/').map(encodeURIComponent).join('/')}`;
  if (copy.bytes <= limits.singleCopyBytes) {
    await place.client.send(
      new CopyObjectCommand({
        Bucket: place.bucket,
        Key: copy.key,
        CopySource: source,
        MetadataDirective: 'REPLACE',
        Metadata: copy.metadata,
        ContentType: copy.contentType,
      }),
    );
    return;
  }
  await copyInParts(place, copy, source, Math.max(limits.partBytes, Math.ceil(copy.bytes / MAX_PARTS)));
}

async function copyInParts(place: S3Place, copy: ObjectCopy, source: string, partBytes: number): Promise<void> {
  const { client, bucket } = place;
  const begun = await client.send(
    new CreateMultipartUploadCommand({
      Bucket: bucket,
      Key: copy.key,
      Metadata: copy.metadata,
      ContentType: copy.contentType,
    }),
  );
  const uploadId = begun.UploadId;
  if (uploadId === undefined) throw new Error(`s3://${bucket}/${copy.key}: the server gave no upload id`);
  const count = Math.ceil(copy.bytes / partBytes);
  const etags: string[] = [];
  let next = 0;
  let failed = false;
  const copyParts = async (): Promise<void> => {
    while (!failed && next < count) {
      const index = next++;
      const start = index * partBytes;
      const end = Math.min(copy.bytes, start + partBytes) - 1;
      const answer = await client
        .send(
          new UploadPartCopyCommand({
            Bucket: bucket,
            Key: copy.key,
            UploadId: uploadId,
            PartNumber: index + 1,
            CopySource: source,
            CopySourceRange: `bytes=${start}-${end}`,
          }),
        )
        .catch((err: unknown) => {
          failed = true;
          throw err;
        });
      etags[index] = answer.CopyPartResult?.ETag ?? '';
    }
  };
  // Every copier has stopped before the upload is aborted: no part lands after the abort.
  const settled = await Promise.allSettled(Array.from({ length: Math.min(PARTS_IN_FLIGHT, count) }, copyParts));
  try {
    const refused = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (refused) throw refused.reason;
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: copy.key,
        UploadId: uploadId,
        MultipartUpload: { Parts: etags.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) },
      }),
    );
  } catch (err) {
    await client
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: copy.key, UploadId: uploadId }))
      .catch(() => undefined);
    throw err;
  }
}
