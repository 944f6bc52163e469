// Where a run's outputs go: a directory (today's files, temp name then rename) or a prefix on
// S3-compatible object storage (a multipart upload completed only when whole). Either way a video or a
// results file is under its final name complete and verified, or not at all.

/** A body received in full by one attempt, not yet under its final name. */
export interface ReceivedBody {
  bytes: number;
  /** Puts the body under its final name, durably; its sha256. */
  finish(): Promise<string>;
  /** Drops what this attempt wrote; the next attempt starts over. */
  discard(): Promise<void>;
}

/** One output streamed in, attempt after attempt, until one is finished. */
export interface BodyTarget {
  /** Where the output is once finished: a path, or an s3:// URI. */
  readonly location: string;
  /** Before the first attempt: folders made, uploads an ended run left for this name aborted. */
  prepare(): Promise<void>;
  /** One attempt: every byte of `body` received; a failed write throws an error with an errno `code` and `syscall`. */
  receive(body: AsyncIterable<Buffer>): Promise<ReceivedBody>;
  /** After the last attempt failed: nothing of this output's attempts is left. */
  clear(): Promise<void>;
}

/** Appends chunks to an output being written whole; waits while the storage is behind. */
export type ChunkWriter = (chunks: readonly Buffer[]) => Promise<void>;

/** An output location on object storage (the disk's own writers stay in their modules). */
export interface ObjectStore {
  /** `s3://bucket/prefix/`, for lines and reports. */
  readonly location: string;
  /** The s3:// URI of `name` under the prefix. */
  uriOf(name: string): string;
  /** A video, streamed: sha256 computed on the way and kept as the object's metadata. */
  target(name: string, expectedSha256?: string): BodyTarget;
  /** Writes `name` whole from what `produce` writes: the object is replaced only when `produce` resolves. */
  putWhole<T>(name: string, produce: (write: ChunkWriter) => Promise<T>): Promise<{ result: T; bytes: number }>;
  /** The stored object's size and recorded sha256, or undefined when there is none. */
  head(name: string): Promise<{ bytes: number; sha256: string | undefined } | undefined>;
  /** The size of the object at `uri` (under this location), or undefined when there is none. */
  sizeOf(uri: string): Promise<number | undefined>;
  /** Bytes start..end (inclusive) of the object at `uri` (under this location), streamed. */
  read(uri: string, start: number, end: number): AsyncIterable<Buffer>;
  /** Deletes the object at `uri` (under this location); none there is no error. */
  remove(uri: string): Promise<void>;
  /** A presigned HTTPS link that gets the object at `uri` (under this location) for `seconds`. */
  presign(uri: string, seconds: number): Promise<string>;
  /** Multipart uploads begun under the prefix and neither completed nor aborted. */
  unfinishedUploads(): Promise<{ key: string; uploadId: string }[]>;
  /** Writes and deletes a probe object: a refusal is a ConfigError naming the location and the cause. */
  probe(): Promise<void>;
  close(): void;
}

/** Options of an object store: the endpoint of an S3-compatible server, and its addressing. */
export interface ObjectStoreOptions {
  endpoint?: string;
  /** Path-style addressing (bucket in the path); on by default when an endpoint is given. */
  pathStyle?: boolean;
  /** The flag that named the location, for refusals (default: --out). */
  flag?: string;
}
