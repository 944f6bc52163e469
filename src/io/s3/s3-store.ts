// Outputs on S3-compatible object storage (AWS S3, MinIO, R2, Ceph, Garage), through the AWS SDK. This
// module is loaded only when an s3:// location is used (open-object-store.ts imports it on demand).
//
// A video streams into a multipart upload on a partial key beside its final one (streamed-upload.ts), its
// sha256 computed on the way. The upload is completed only once every byte has arrived (and matched an
// expected sha256 when one is given); the server then copies it to the final key with the sha256 as its
// metadata (fixed when an object is made), and the partial object is deleted. So the final key holds the
// whole object with its sha256, or nothing. What a crash left (an upload, a partial object) is removed before
// the key is written again.
import { createHash, randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ConfigError } from '../../core/config-error.js';
import { locationUri, objectKey, objectUri, type ObjectLocation } from '../../core/object-location.js';
import type { BodyTarget, ChunkWriter, ObjectStore, ObjectStoreOptions } from '../output-store.js';
import { describeS3Failure, ObjectStoreError, s3FailureOf } from './store-errors.js';
import { startUpload, type StreamedUpload } from './streamed-upload.js';

/** The metadata key of an object's sha256 (sent as x-amz-meta-sha256). */
export const SHA256_METADATA = 'sha256';
/** Appended to a video's key while it is uploaded: never a name an output takes (those end .mp4/.jsonl). */
export const PARTIAL_SUFFIX = '.gbatch-partial';

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

  const uploadTo = (key: string, contentType: string): StreamedUpload =>
    startUpload({
      client,
      bucket,
      key,
      uri: objectUri(location, key),
      contentType,
      abortLeftovers: () => abortUploadsOf(key),
    });

  /** Removes what attempts at `key` left: uploads of the key and of its partial key, and the partial object. */
  const clearAttempts = async (key: string): Promise<void> => {
    await abortUploadsOf(key);
    await abortUploadsOf(`${key}${PARTIAL_SUFFIX}`);
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${key}${PARTIAL_SUFFIX}` }));
  };

  const target = (name: string, expectedSha256?: string): BodyTarget => {
    const key = objectKey(location, name);
    const partialKey = `${key}${PARTIAL_SUFFIX}`;
    const uri = objectUri(location, key);
    return {
      location: uri,
      prepare: async () => {
        try {
          await clearAttempts(key);
        } catch (err) {
          throw new ObjectStoreError(uri, err);
        }
      },
      receive: async (body) => {
        const upload = uploadTo(partialKey, 'video/mp4');
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
                CopySource: `${bucket}/${partialKey.split('/').map(encodeURIComponent).join('/')}`,
                MetadataDirective: 'REPLACE',
                Metadata: { [SHA256_METADATA]: sha256 },
                ContentType: 'video/mp4',
              }),
            );
            await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: partialKey }));
          } catch (err) {
            throw new ObjectStoreError(uri, err);
          }
          return sha256;
        };
        const discard = async (): Promise<void> => {
          await upload.abort();
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: partialKey })).catch(() => undefined);
        };
        return { bytes, finish, discard };
      },
      clear: async () => {
        await clearAttempts(key).catch(() => undefined);
      },
    };
  };

  const putWhole = async <T>(
    name: string,
    produce: (write: ChunkWriter) => Promise<T>,
  ): Promise<{ result: T; bytes: number }> => {
    const upload = uploadTo(objectKey(location, name), contentTypeOf(name));
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

  /** The key of an s3:// URI under this location; anything else is refused (a record cannot point elsewhere). */
  const keyOfUri = (uri: string): string => {
    const root = locationUri(location);
    if (!uri.startsWith(root) || uri.length === root.length) throw new Error(`${uri} is not an object under ${root}`);
    return `${location.prefix}${uri.slice(root.length)}`;
  };

  const sizeOf = async (uri: string): Promise<number | undefined> => {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOfUri(uri) }));
      return answer.ContentLength ?? 0;
    } catch (err) {
      const { name: code, status } = s3FailureOf(err);
      if (status === 404 || code === 'NotFound' || code === 'NoSuchKey') return undefined;
      throw new ObjectStoreError(uri, err);
    }
  };

  async function* read(uri: string, start: number, end: number): AsyncGenerator<Buffer> {
    let answer;
    try {
      answer = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: keyOfUri(uri), Range: `bytes=${start}-${end}` }),
      );
    } catch (err) {
      throw new ObjectStoreError(uri, err);
    }
    for await (const chunk of answer.Body as AsyncIterable<Uint8Array>) yield Buffer.from(chunk);
  }

  const remove = async (uri: string): Promise<void> => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOfUri(uri) }));
    } catch (err) {
      throw new ObjectStoreError(uri, err);
    }
  };

  const presign = (uri: string, seconds: number): Promise<string> =>
    getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: keyOfUri(uri) }), { expiresIn: seconds });

  const probe = async (): Promise<void> => {
    const key = `${location.prefix}.gbatch-probe-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'gbatch write check\n' }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      throw new ConfigError(
        `${locationUri(location)}: cannot write ${options.flag ?? '--out'} there: ${describeS3Failure(s3FailureOf(err))}`,
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
    sizeOf,
    read,
    remove,
    presign,
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
