// An object written whole (results.jsonl, serve's files): streamed as it is produced, and replacing what is
// under its key only when the producer finishes; a producer that fails leaves the old object.
import { objectKey, objectUri } from '../../core/object-location.js';
import type { ChunkWriter } from '../output-store.js';
import { abortUploadsOf } from './multipart-sweep.js';
import { contentTypeOf, type S3Place } from './s3-place.js';
import { startUpload } from './streamed-upload.js';

export async function putWhole<T>(
  place: S3Place,
  name: string,
  produce: (write: ChunkWriter) => Promise<T>,
): Promise<{ result: T; bytes: number }> {
  const key = objectKey(place.location, name);
  const upload = startUpload({
    client: place.client,
    bucket: place.bucket,
    key,
    uri: objectUri(place.location, key),
    contentType: contentTypeOf(name),
    abortLeftovers: () => abortUploadsOf(place, key),
  });
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
}
