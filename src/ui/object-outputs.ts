// The dashboard's reads of s3:// outputs, with its own process's credentials (the AWS_* variables, profiles
// and files) and --s3-endpoint: one store per bucket, opened on first use (the SDK is loaded only then).
// A browser never sees a credential: the bytes pass through the dashboard, behind its sign-in.
import { parseObjectLocation } from '../core/object-location.js';
import { objectStoreAt } from '../io/open-object-store.js';
import type { ObjectStore, ObjectStoreOptions } from '../io/output-store.js';

export interface ObjectOutputs {
  /** The store that holds `uri` (an s3:// URI a row records). */
  storeOf(uri: string): Promise<ObjectStore>;
  close(): void;
}

export function objectOutputs(options: ObjectStoreOptions, env: NodeJS.ProcessEnv): ObjectOutputs {
  const stores = new Map<string, Promise<ObjectStore>>();
  return {
    storeOf: (uri) => {
      const { bucket } = parseObjectLocation(uri, 'output');
      let store = stores.get(bucket);
      if (!store) {
        store = objectStoreAt(`s3://${bucket}`, options, env);
        // A store that could not be made (a bad endpoint) is tried afresh by the next request.
        store.catch(() => stores.delete(bucket));
        stores.set(bucket, store);
      }
      return store;
    },
    close: () => {
      for (const store of stores.values()) void store.then((s) => s.close()).catch(() => undefined);
    },
  };
}
