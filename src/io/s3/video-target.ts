// A video streamed to its key, its sha256 computed on the way; the final key holds the whole video with its
// sha256 as metadata (x-amz-meta-sha256), or nothing. Metadata is fixed when an object is made, so:
// - with the sha256 known before the bytes (expected), the multipart upload begins on the final key with it,
//   and is completed only when the bytes match; a mismatch aborts it. A multipart upload is invisible until
//   completed, so the final key never shows a partial or unverified video, and no copy is made;
// - else a video of one upload part or less (PART_BYTES) is read whole first and put on the final key with
//   its sha256 in one request, which makes the object whole or not at all;
// - else the bytes go to a partial key beside the final one, and once complete the server copies them to
//   the final key with the sha256 it now knows (object-copy.ts), then the partial object is deleted.
// What a crash leaves of either (an upload on the final or the partial key, a partial object) is removed
// before the key is written again (multipart-sweep.ts).
import { createHash } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { objectKey, objectUri } from '../../core/object-location.js';
import type { BodyTarget, ReceivedBody } from '../output-store.js';
import { readHead } from './body-head.js';
import { abortUploadsOf, clearAttempts } from './multipart-sweep.js';
import { copyWithMetadata, type CopyLimits } from './object-copy.js';
import { PARTIAL_SUFFIX, SHA256_METADATA, type S3Place } from './s3-place.js';
import { ObjectStoreError } from './store-errors.js';
import { PART_BYTES, startUpload, type StreamedUpload } from './streamed-upload.js';

const VIDEO = 'video/mp4';

export function videoTarget(place: S3Place, name: string, expectedSha256: string | undefined, limits: CopyLimits) {
  const key = objectKey(place.location, name);
  const uri = objectUri(place.location, key);
  const expected = expectedSha256?.toLowerCase();
  const target: BodyTarget = {
    location: uri,
    prepare: async () => {
      try {
        await clearAttempts(place, key);
      } catch (err) {
        throw new ObjectStoreError(uri, err);
      }
    },
    receive: async (body) => {
      if (expected !== undefined) return receiveVerified(place, key, body, expected);
      // Up to one part, a video is held whole (as a part of a streamed one is) and needs no copy.
      const head = await readHead(body, PART_BYTES);
      return head.whole ? receiveWhole(place, key, head.whole) : receiveViaPartial(place, key, head.rest, limits);
    },
    clear: async () => {
      await clearAttempts(place, key).catch(() => undefined);
    },
  };
  return target;
}

function uploadTo(place: S3Place, key: string, metadata?: Record<string, string>): StreamedUpload {
  return startUpload({
    client: place.client,
    bucket: place.bucket,
    key,
    uri: objectUri(place.location, key),
    contentType: VIDEO,
    ...(metadata !== undefined ? { metadata } : {}),
    abortLeftovers: () => abortUploadsOf(place, key),
  });
}

/** Every byte of `body` into the upload (aborted if the body or the upload fails); their count and sha256. */
async function streamInto(
  upload: StreamedUpload,
  body: AsyncIterable<Buffer>,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      hash.update(chunk);
      await upload.write(chunk);
    }
  } catch (err) {
    await upload.abort();
    throw err;
  }
  return { bytes, sha256: hash.digest('hex') };
}

async function completeOrAbort(upload: StreamedUpload): Promise<void> {
  try {
    await upload.complete();
  } catch (err) {
    await upload.abort();
    throw err;
  }
}

/** Stopped as a failed write (an errno code and syscall): the download stops on it, as on a disk's. */
function mismatch(place: S3Place, key: string, sha256: string, expected: string): Error {
  const uri = objectUri(place.location, key);
  return Object.assign(new Error(`${uri}: sha256 ${sha256} is not the expected ${expected}`), {
    code: 'EIO',
    syscall: 'write',
  });
}

async function receiveVerified(
  place: S3Place,
  key: string,
  body: AsyncIterable<Buffer>,
  expected: string,
): Promise<ReceivedBody> {
  const upload = uploadTo(place, key, { [SHA256_METADATA]: expected });
  const { bytes, sha256 } = await streamInto(upload, body);
  const finish = async (): Promise<string> => {
    if (sha256 !== expected) {
      await upload.abort();
      throw mismatch(place, key, sha256, expected);
    }
    await completeOrAbort(upload);
    return sha256;
  };
  return { bytes, finish, discard: () => upload.abort() };
}

function receiveWhole(place: S3Place, key: string, video: Buffer): ReceivedBody {
  const sha256 = createHash('sha256').update(video).digest('hex');
  const finish = async (): Promise<string> => {
    const put = new PutObjectCommand({
      Bucket: place.bucket,
      Key: key,
      Body: video,
      ContentType: VIDEO,
      Metadata: { [SHA256_METADATA]: sha256 },
    });
    try {
      await place.client.send(put);
    } catch (err) {
      throw new ObjectStoreError(objectUri(place.location, key), err);
    }
    return sha256;
  };
  return { bytes: video.length, finish, discard: async () => undefined };
}

async function receiveViaPartial(
  place: S3Place,
  key: string,
  body: AsyncIterable<Buffer>,
  limits: CopyLimits,
): Promise<ReceivedBody> {
  const partialKey = `${key}${PARTIAL_SUFFIX}`;
  const deletePartial = () => place.client.send(new DeleteObjectCommand({ Bucket: place.bucket, Key: partialKey }));
  const upload = uploadTo(place, partialKey);
  const { bytes, sha256 } = await streamInto(upload, body);
  const finish = async (): Promise<string> => {
    await completeOrAbort(upload);
    try {
      const metadata = { [SHA256_METADATA]: sha256 };
      await copyWithMetadata(place, { sourceKey: partialKey, key, bytes, metadata, contentType: VIDEO }, limits);
      await deletePartial();
    } catch (err) {
      throw new ObjectStoreError(objectUri(place.location, key), err);
    }
    return sha256;
  };
  const discard = async (): Promise<void> => {
    await upload.abort();
    await deletePartial().catch(() => undefined);
  };
  return { bytes, finish, discard };
}
