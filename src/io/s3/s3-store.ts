// Outputs on S3-compatible object storage (AWS S3, MinIO, R2, Ceph, Garage), through the AWS SDK. This
// module is loaded only when an s3:// location is used (open-object-store.ts imports it on demand). It puts
// together one client and the store's concepts, each in its module: videos (video-target.ts, with
// object-copy.ts), whole objects (whole-object.ts), reads (stored-objects.ts), the sweep of uploads
// (multipart-sweep.ts) and the start check (store-probe.ts).
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { locationUri, objectKey, objectUri, type ObjectLocation } from '../../core/object-location.js';
import type { ObjectStore, ObjectStoreOptions } from '../output-store.js';
import { listUploads } from './multipart-sweep.js';
import { S3_COPY_LIMITS, type CopyLimits } from './object-copy.js';
import { createS3Client, type S3Place } from './s3-place.js';
import { headOf, keyOfUri, readRange, removeObject, sizeOf } from './stored-objects.js';
import { probeWrite } from './store-probe.js';
import { videoTarget } from './video-target.js';
import { putWhole } from './whole-object.js';

export { PARTIAL_SUFFIX, SHA256_METADATA } from './s3-place.js';

/** Tests set smaller copy limits to take the copy in parts without 5 GiB of bytes. */
export interface S3StoreOptions extends ObjectStoreOptions {
  copyLimits?: CopyLimits;
}

export function createS3Store(location: ObjectLocation, options: S3StoreOptions): ObjectStore {
  const client = createS3Client(options);
  const place: S3Place = { client, bucket: location.bucket, location };
  const copyLimits = options.copyLimits ?? S3_COPY_LIMITS;
  return {
    location: locationUri(location),
    uriOf: (name) => objectUri(location, objectKey(location, name)),
    target: (name, expectedSha256) => videoTarget(place, name, expectedSha256, copyLimits),
    putWhole: (name, produce) => putWhole(place, name, produce),
    head: (name) => headOf(place, name),
    sizeOf: (uri) => sizeOf(place, uri),
    read: (uri, start, end) => readRange(place, uri, start, end),
    remove: (uri) => removeObject(place, uri),
    presign: (uri, seconds) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: location.bucket, Key: keyOfUri(place, uri) }), {
        expiresIn: seconds,
      }),
    unfinishedUploads: () => listUploads(place, location.prefix),
    probe: () => probeWrite(place, options.flag),
    close: () => client.destroy(),
  };
}
