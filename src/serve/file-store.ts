// Where the server keeps its files: the uploads and each batch's outputs (results.jsonl and videos), in the
// --data folder or under an s3:// prefix. With s3:// the catalog and the journals are not there: they stay in
// the --journal database (an SQLite file, whose folder then also holds the batches' journals and a copy of
// each input the runs read, or PostgreSQL). A batch's output and error files are made from its journal when
// read, so they are the same wherever the videos are.
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isObjectLocation } from '../core/object-location.js';
import { makeDirectoriesSync } from '../io/make-directories.js';
import { openObjectStore } from '../io/open-object-store.js';
import type { ObjectStore, ObjectStoreOptions } from '../io/output-store.js';
import { isDatabaseUrl } from '../journal/index.js';
import { UsageError } from '../job/options.js';
import { diskFileResponse, rangedResponse } from '../io/file-response.js';

export interface ServeFiles {
  /** `--data` as given: a folder or an s3:// location ending with '/'. */
  readonly location: string;
  /** The local folder of the SQLite journals (one per batch) and of the uploads as received. */
  readonly localDir: string;
  /** Where a batch's run writes its results.jsonl and videos: a folder or an s3:// location. */
  batchOut(batchId: string): string;
  /** An upload received whole at `path` (localDir/files/<id>.jsonl), kept: its place, for the catalog. */
  keep(path: string, id: string): Promise<string>;
  /** A local file of what the catalog keeps at `place` (an s3:// object is fetched once, then read locally). */
  local(place: string): Promise<string>;
  /** The content at `place` as an HTTP answer, one Range honoured. */
  response(place: string, range: string | undefined, type: string): Promise<Response>;
  /** Deletes what is at `place` (and its local copy); nothing there is no error. */
  remove(place: string): Promise<void>;
  close(): Promise<void>;
}

export interface FilesOptions {
  data: string;
  /** The --journal given, if any: an SQLite file or a postgres:// URL. */
  journal: string | undefined;
  objectStore: ObjectStoreOptions;
}

/** Opens --data: a folder is made; an s3:// location is checked writable (a probe object) first. */
export async function openServeFiles(options: FilesOptions): Promise<ServeFiles> {
  if (!isObjectLocation(options.data)) return folderFiles(options.data);
  if (options.journal === undefined)
    throw new UsageError(
      `--data ${options.data} holds files only: give --journal (an SQLite file on this host, or a postgres:// URL) for the catalog and the batches' journals`,
    );
  const store = await openObjectStore(options.data, { ...options.objectStore, flag: '--data' });
  let uploads: ObjectStore;
  try {
    uploads = await openObjectStore(`${store.location}files`, { ...options.objectStore, flag: '--data' });
  } catch (err) {
    store.close();
    throw err;
  }
  const onDatabase = isDatabaseUrl(options.journal);
  const localDir = onDatabase ? await mkdtemp(join(tmpdir(), 'gbatch-serve-')) : dirname(resolve(options.journal));
  return objectFiles(store, uploads, localDir, onDatabase);
}

/** Files in the folder `dataDir`, as they always were. */
export function folderFiles(dataDir: string): ServeFiles {
  makeDirectoriesSync(join(dataDir, 'files'));
  return {
    location: dataDir,
    localDir: dataDir,
    batchOut: (batchId) => join(dataDir, 'out', batchId),
    keep: async (path) => path,
    local: async (place) => place,
    response: (place, range, type) => diskFileResponse(resolve(place), range, type),
    remove: (place) => rm(resolve(place), { force: true }),
    close: async () => undefined,
  };
}

function objectFiles(store: ObjectStore, uploads: ObjectStore, localDir: string, temporary: boolean): ServeFiles {
  makeDirectoriesSync(join(localDir, 'files'));
  /** An upload's copy on this host: where it was received, or where it is fetched to on another host. */
  const copyOf = (place: string): string =>
    join(localDir, 'files', place.slice(place.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_.-]/g, '_'));
  const sizeOf = async (place: string): Promise<number> => {
    const size = await store.sizeOf(place);
    if (size === undefined) throw new Error(`${place}: the object is gone`);
    return size;
  };
  return {
    location: store.location,
    localDir,
    batchOut: (batchId) => `${store.location}out/${batchId}`,
    keep: async (path, id) => {
      const name = `${id}.jsonl`;
      await uploads.putWhole(name, async (write) => {
        for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) await write([chunk]);
      });
      return uploads.uriOf(name);
    },
    local: async (place) => {
      if (!isObjectLocation(place)) return place;
      const copy = copyOf(place);
      if (existsSync(copy)) return copy;
      const size = await sizeOf(place);
      const part = `${copy}.${process.pid}.part`;
      await pipeline(Readable.from(size === 0 ? [] : store.read(place, 0, size - 1)), createWriteStream(part));
      await rename(part, copy);
      return copy;
    },
    response: async (place, range, type) => {
      if (!isObjectLocation(place)) return diskFileResponse(resolve(place), range, type);
      const size = await sizeOf(place);
      return rangedResponse(
        size,
        (start, end) => Readable.toWeb(Readable.from(store.read(place, start, end))) as ReadableStream<Uint8Array>,
        range,
        type,
      );
    },
    remove: async (place) => {
      if (!isObjectLocation(place)) return rm(resolve(place), { force: true });
      await store.remove(place);
      if (place.startsWith(uploads.location)) await rm(copyOf(place), { force: true });
    },
    close: async () => {
      store.close();
      uploads.close();
      if (temporary) await rm(localDir, { recursive: true, force: true });
    },
  };
}
