// What is stored under a location, by name or by s3:// URI: size and recorded sha256, bytes in a range,
// deletion. A URI outside the location is refused: a journal record cannot point a read elsewhere.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { locationUri, objectKey, objectUri } from '../../core/object-location.js';
import { isMissing, SHA256_METADATA, type S3Place } from './s3-place.js';
import { ObjectStoreError } from './store-errors.js';

/** The key of an s3:// URI under the place's location. */
export function keyOfUri({ location }: S3Place, uri: string): string {
  const root = locationUri(location);
  if (!uri.startsWith(root) || uri.length === root.length) throw new Error(`${uri} is not an object under ${root}`);
  return `${location.prefix}${uri.slice(root.length)}`;
}

async function headKey(place: S3Place, key: string) {
  try {
    return await place.client.send(new HeadObjectCommand({ Bucket: place.bucket, Key: key }));
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw new ObjectStoreError(objectUri(place.location, key), err);
  }
}

export async function headOf(place: S3Place, name: string) {
  const answer = await headKey(place, objectKey(place.location, name));
  return answer && { bytes: answer.ContentLength ?? 0, sha256: answer.Metadata?.[SHA256_METADATA] };
}

export async function sizeOf(place: S3Place, uri: string): Promise<number | undefined> {
  const answer = await headKey(place, keyOfUri(place, uri));
  return answer && (answer.ContentLength ?? 0);
}

export async function* readRange(place: S3Place, uri: string, start: number, end: number): AsyncGenerator<Buffer> {
  let answer;
  try {
    answer = await place.client.send(
      new GetObjectCommand({ Bucket: place.bucket, Key: keyOfUri(place, uri), Range: `bytes=${start}-${end}` }),
    );
  } catch (err) {
    throw new ObjectStoreError(uri, err);
  }
  for await (const chunk of answer.Body as AsyncIterable<Uint8Array>) yield Buffer.from(chunk);
}

export async function removeObject(place: S3Place, uri: string): Promise<void> {
  try {
    await place.client.send(new DeleteObjectCommand({ Bucket: place.bucket, Key: keyOfUri(place, uri) }));
  } catch (err) {
    throw new ObjectStoreError(uri, err);
  }
}
