// Outputs on S3-compatible object storage (AWS S3, MinIO, R2, Ceph, Garage), through the AWS SDK. This
// module is loaded only when an s3:// location is used (open-object-store.ts imports it on demand).
//
// A video streams into a multipart upload on its final key, its sha256 computed on the way. The upload is
// completed only once every byte has arrived (and matched an expected sha256 when one is given), so the key
// holds the whole object or nothing; the sha256 is then stored as the object's metadata (a copy onto itself,
// done by the server). An upload a crash left behind is aborted before its key is written again.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ConfigError } from '../../core/config-error.js';
import { locationUri, objectKey, objectUri, type ObjectLocation } from '../../core/object-location.js';
import type { BodyTarget, ChunkWriter, ObjectStore, ObjectStoreOptions } from '../output-store.js';
import { describeS3Failure, ObjectStoreError, s3FailureOf } from './store-errors.js';

/**
 * Bytes per uploaded part: S3's smallest, so at most QUEUE_SIZE parts (~20 MiB) are held at once whatever
 * the video's size; 10,000 parts (S3's most) make 50 GB.
 */
const PART_BYTES = 5 * 1024 * 1024;
const QUEUE_SIZE = 4;
/** The metadata key of an object's sha256 (sent as x-amz-meta-sha256). */
export const SHA256_METADATA = 'sha256';

export function createS3Store(location: ObjectLocation, options: ObjectStoreOptions): ObjectStore {
  // gbatch supports Node 20 on purpose (package.json pins the SDK to releases that do): the SDK's advice to
  // upgrade would be a stray paragraph on stderr, where gbatch prints one line per event. Its documented switch.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = options.endpoint;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const client = new S3Client({
    ...(endpoint !== undefined ? { endpoint } : {}),
    // An S3-compatible server is addressed with the bucket in the path unless told otherwise.
    forcePathStyle: options.pathStyle ?? endpoint !== undefined,
    ...(region === undefined && endpoint !== undefined ? { region: 'us-east-1' } : {}),
    // Checksums only where S3 requires them: several S3-compatible servers refuse the newer default ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const { bucket } = location;
  const uriOf = (name: string): string => objectUri(location, objectKey(location, name));

  /** Aborts the multipart uploads of exactly `key` (a crashed attempt's), so no part is left behind. */
  const abortUploadsOf = async (key: string): Promise<void> => {
    for (const upload of await listUploads(key)) {
      if (upload.key !== key) continue;
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.uploadId }));
    }
  };

  /** Uploads under `prefix`; none on a server that keeps no list of them (s3rver answers 501). */
  const listUploads = async (prefix: string): Promise<{ key: string; uploadId: string }[]> => {
    const found: { key: string; uploadId: string }[] = [];
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
  };

  /** A streaming upload of `key`: chunks written with backpressure, completed by end(), or aborted. */
  const streamTo = (key: string, contentType: string) => {
    const uri = objectUri(location, key);
    const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: stream, ContentType: contentType },
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
    const storeError = (err: unknown): Error => new ObjectStoreError(uri, err);
    const write = async (chunk: Buffer): Promise<void> => {
      if (failed !== undefined) throw storeError(failed);
      if (stream.write(chunk)) return;
      await Promise.race([once(stream, 'drain'), done]).catch(() => undefined);
      if (failed !== undefined) throw storeError(failed);
    };
    const complete = async (): Promise<void> => {
      stream.end();
      try {
        await done;
      } catch (err) {
        throw storeError(err);
      }
    };
    // Not upload.abort(): its done() rejects at once while parts may still be on their way. A body that fails
    // ends the upload's own work first (parts in flight, then its AbortMultipartUpload); the list is the backstop.
    const abort = async (): Promise<void> => {
      failed ??= new Error('aborted');
      stream.destroy(new Error('the output was abandoned'));
      await done.catch(() => undefined);
      await abortUploadsOf(key).catch(() => undefined);
    };
    return { write, complete, abort, storeError };
  };

  const target = (name: string, expectedSha256?: string): BodyTarget => {
    const key = objectKey(location, name);
    const uri = objectUri(location, key);
    return {
      location: uri,
      prepare: async () => {
        try {
          await abortUploadsOf(key);
        } catch (err) {
          throw new ObjectStoreError(uri, err);
        }
      },
      receive: async (body) => {
        const upload = streamTo(key, 'video/mp4');
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
        const finish = async (): Promise<string> => {
          const sha256 = hash.digest('hex');
          if (expectedSha256 !== undefined && sha256 !== expectedSha256.toLowerCase()) {
            await upload.abort();
            throw Object.assign(new Error(`${uri}: sha256 ${sha256} is not the expected ${expectedSha256}`), {
              code: 'EIO',
              syscall: 'write',
            });
          }
          try {
            await upload.complete();
          } catch (err) {
            await upload.abort();
            throw err;
          }
          try {
            await client.send(
              new CopyObjectCommand({
                Bucket: bucket,
                Key: key,
                CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
                MetadataDirective: 'REPLACE',
                Metadata: { [SHA256_METADATA]: sha256 },
                ContentType: 'video/mp4',
              }),
            );
          } catch (err) {
            throw upload.storeError(err);
          }
          return sha256;
        };
        return { bytes, finish, discard: upload.abort };
      },
      clear: async () => {
        await abortUploadsOf(key).catch(() => undefined);
      },
    };
  };

  const putWhole = async <T>(
    name: string,
    produce: (write: ChunkWriter) => Promise<T>,
  ): Promise<{ result: T; bytes: number }> => {
    const upload = streamTo(objectKey(location, name), contentTypeOf(name));
    let bytes = 0;
    let result: T;
    try {
      result = await produce(async (chunks) => {
        for (const chunk of chunks) {
          bytes += chunk.length;
          await upload.write(chunk);
        }
      });
      // An empty object is a PutObject of no bytes: still whole.
      await upload.complete();
    } catch (err) {
      await upload.abort();
      throw err;
    }
    return { result, bytes };
  };

  const head = async (name: string) => {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(location, name) }));
      return { bytes: answer.ContentLength ?? 0, sha256: answer.Metadata?.[SHA256_METADATA] };
    } catch (err) {
      const { name: code, status } = s3FailureOf(err);
      if (status === 404 || code === 'NotFound' || code === 'NoSuchKey') return undefined;
      throw new ObjectStoreError(uriOf(name), err);
    }
  };

  const probe = async (): Promise<void> => {
    const key = `${location.prefix}.gbatch-probe-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'gbatch write check\n' }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      throw new ConfigError(
        `${locationUri(location)}: cannot write --out there: ${describeS3Failure(s3FailureOf(err))}`,
        {
          cause: err,
        },
      );
    }
  };

  return {
    location: locationUri(location),
    uriOf,
    target,
    putWhole,
    head,
    unfinishedUploads: () => listUploads(location.prefix),
    probe,
    close: () => client.destroy(),
  };
}

function contentTypeOf(name: string): string {
  if (name.endsWith('.jsonl')) return 'application/jsonl';
  if (name.endsWith('.mp4')) return 'video/mp4';
  return 'application/octet-stream';
}
