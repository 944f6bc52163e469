// Where a store's objects are (one client, one bucket, the location's prefix) and what is known of them
// by name: the metadata key of a video's sha256, the partial key it is uploaded to, its content type.
import { S3Client } from '@aws-sdk/client-s3';
import type { ObjectLocation } from '../../core/object-location.js';
import type { ObjectStoreOptions } from '../output-store.js';
import { s3FailureOf } from './store-errors.js';

/** The metadata key of an object's sha256 (sent as x-amz-meta-sha256). */
export const SHA256_METADATA = 'sha256';
/** Appended to a video's key while it is uploaded: never a name an output takes (those end .mp4/.jsonl). */
export const PARTIAL_SUFFIX = '.gbatch-partial';

export interface S3Place {
  client: S3Client;
  bucket: string;
  location: ObjectLocation;
}

export function createS3Client(options: ObjectStoreOptions): S3Client {
  // gbatch supports Node 20 on purpose (package.json pins the SDK to releases that do): the SDK's advice to
  // upgrade would be a stray paragraph on stderr, where gbatch prints one line per event. Its documented switch.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = options.endpoint;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  return new S3Client({
    ...(endpoint !== undefined ? { endpoint } : {}),
    // An S3-compatible server is addressed with the bucket in the path unless told otherwise.
    forcePathStyle: options.pathStyle ?? endpoint !== undefined,
    ...(region === undefined && endpoint !== undefined ? { region: 'us-east-1' } : {}),
    // Checksums only where S3 requires them: several S3-compatible servers refuse the newer default ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** True when the server said there is no such object. */
export function isMissing(err: unknown): boolean {
  const { name, status } = s3FailureOf(err);
  return status === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

export function contentTypeOf(name: string): string {
  if (name.endsWith('.jsonl')) return 'application/jsonl';
  if (name.endsWith('.mp4')) return 'video/mp4';
  return 'application/octet-stream';
}
