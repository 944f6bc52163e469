// One object written as a stream: lib-storage's Upload fed through a bounded PassThrough. Bytes are sent in
// parts as they come; the object exists only once complete() has finished (a multipart upload completed, or
// one PutObject for a small body); abort() leaves nothing of it.
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ObjectStoreError } from './store-errors.js';

/**
 * Bytes per uploaded part: S3's smallest, so at most QUEUE_SIZE parts (~20 MiB) are held at once whatever
 * the video's size; 10,000 parts (S3's most) make 50 GB.
 */
export const PART_BYTES = 5 * 1024 * 1024;
const QUEUE_SIZE = 4;
/** Bytes waiting in the stream before a write waits for the upload to take them. */
const BUFFERED_BYTES = 1024 * 1024;

export interface StreamedUpload {
  /** Resolves once the chunk is taken (the upload may be behind by a few parts); a failed upload throws. */
  write(chunk: Buffer): Promise<void>;
  /** Ends the body and waits for the object to exist under its key. */
  complete(): Promise<void>;
  /** Ends the upload's own work (parts in flight), then aborts what is left of it under the key. */
  abort(): Promise<void>;
}

export interface UploadPlace {
  client: S3Client;
  bucket: string;
  key: string;
  /** The object's s3:// URI, for errors. */
  uri: string;
  contentType: string;
  /** Set on the object when it is made (a multipart upload's metadata is given when it begins). */
  metadata?: Record<string, string>;
  /** Aborts every multipart upload of the key (the backstop of abort()). */
  abortLeftovers(): Promise<void>;
}

export function startUpload(place: UploadPlace): StreamedUpload {
  const stream = new PassThrough({ highWaterMark: BUFFERED_BYTES });
  const upload = new Upload({
    client: place.client,
    params: {
      Bucket: place.bucket,
      Key: place.key,
      Body: stream,
      ContentType: place.contentType,
      ...(place.metadata !== undefined ? { Metadata: place.metadata } : {}),
    },
    partSize: PART_BYTES,
    queueSize: QUEUE_SIZE,
    leavePartsOnError: false,
  });
  const done = upload.done();
  let failed: unknown;
  done.catch((err: unknown) => {
    failed ??= err;
    stream.destroy();
  });
  const storeError = (err: unknown): Error => new ObjectStoreError(place.uri, err);
  return {
    write: async (chunk) => {
      if (failed !== undefined) throw storeError(failed);
      if (stream.write(chunk)) return;
      await Promise.race([once(stream, 'drain'), done]).catch(() => undefined);
      if (failed !== undefined) throw storeError(failed);
    },
    complete: async () => {
      stream.end();
      try {
        await done;
      } catch (err) {
        throw storeError(err);
      }
    },
    // Not upload.abort(): its done() rejects at once while parts may still be on their way. A body that fails
    // ends the upload's own work first (parts in flight, then its AbortMultipartUpload); the list is the backstop.
    abort: async () => {
      failed ??= new Error('aborted');
      stream.destroy(new Error('the output was abandoned'));
      await done.catch(() => undefined);
      await place.abortLeftovers().catch(() => undefined);
    },
  };
}
