// One moto_server with one bucket for a test file's tests: started before them, closed after (nothing started
// when moto_server is missing and its tests skip).
import { afterAll, beforeAll } from 'vitest';
import { MOTO_MISSING, startMoto, type S3Server } from './s3-servers.js';

/** The file's moto_server, `bucket` made on it; `server` is read inside tests (it starts before them). */
export function useMotoBucket(bucket: string): { readonly server: S3Server } {
  let server: S3Server | undefined;
  // moto_server is a Python program: on a host loaded several times over its cores it took over 30 s to start.
  beforeAll(async () => {
    if (MOTO_MISSING) return;
    server = await startMoto();
    await server.createBucket(bucket);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server(): S3Server {
      if (server === undefined)
        throw new Error(`moto_server for bucket ${bucket} is not running (read before the tests?)`);
      return server;
    },
  };
}
