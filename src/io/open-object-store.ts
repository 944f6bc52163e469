// Opens an s3:// output location and checks it can be written, before a run sends anything. The AWS SDK is
// loaded here, on demand: a run that writes to disk never loads it (its start time does not grow).
import { parseEndpoint, parseObjectLocation } from '../core/object-location.js';
import type { ObjectStore, ObjectStoreOptions } from './output-store.js';

/** `endpoint` given: that server; else AWS_ENDPOINT_URL from the environment, else AWS's own endpoints. */
export async function openObjectStore(
  out: string,
  options: ObjectStoreOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ObjectStore> {
  const store = await objectStoreAt(out, options, env);
  try {
    await store.probe();
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}

/** The store at `out`, not checked: for reading what a run wrote (no probe object is written). */
export async function objectStoreAt(
  out: string,
  options: ObjectStoreOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ObjectStore> {
  const location = parseObjectLocation(out, options.flag);
  const given = options.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const what =
    options.endpoint !== undefined
      ? '--s3-endpoint'
      : env.AWS_ENDPOINT_URL_S3 !== undefined
        ? 'AWS_ENDPOINT_URL_S3'
        : 'AWS_ENDPOINT_URL';
  const endpoint = given === undefined || given === '' ? undefined : parseEndpoint(given, what);
  const { createS3Store } = await import('./s3/s3-store.js');
  return createS3Store(location, {
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(options.pathStyle !== undefined ? { pathStyle: options.pathStyle } : {}),
    ...(options.flag !== undefined ? { flag: options.flag } : {}),
  });
}
