// The object store against a real S3-compatible server (moto_server on loopback): objects appear under
// their final key only when whole and verified, an upload a crash left behind is aborted before its key is
// written again, and a location that cannot be written is refused by a probe before anything else.
import { createHash, randomBytes } from 'node:crypto';
import {
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ConfigError } from '../../../src/core/config-error.js';
import { parseObjectLocation } from '../../../src/core/object-location.js';
import type { ObjectStore } from '../../../src/io/output-store.js';
import type { CopyLimits } from '../../../src/io/s3/object-copy.js';
import { createS3Store } from '../../../src/io/s3/s3-store.js';
import { startHoldProxy } from '../../helpers/s3-hold-proxy.js';
import { s3Env, MOTO_MISSING, startMoto, type S3Server } from '../../helpers/s3-servers.js';

let moto: S3Server;
const opened: ObjectStore[] = [];

beforeAll(async () => {
  if (MOTO_MISSING) return;
  moto = await startMoto();
  for (const [name, value] of Object.entries(s3Env(moto.endpoint))) vi.stubEnv(name, value);
  await moto.createBucket('outputs');
});

afterAll(async () => {
  for (const store of opened) store.close();
  vi.unstubAllEnvs();
  await moto?.close();
});

function store(out: string, copyLimits?: CopyLimits, endpoint = moto.endpoint): ObjectStore {
  const made = createS3Store(parseObjectLocation(out), {
    endpoint,
    ...(copyLimits !== undefined ? { copyLimits } : {}),
  });
  opened.push(made);
  return made;
}

async function* chunksOf(bytes: Buffer, size = 256 * 1024): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(key: string): Promise<Buffer> {
  const answer = await moto.client.send(new GetObjectCommand({ Bucket: 'outputs', Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await moto.client.send(new ListObjectsV2Command({ Bucket: 'outputs', Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(MOTO_MISSING)('a video streamed to object storage', () => {
  test('a multipart upload: nothing under the key until finished, then the bytes with their sha256', async () => {
    const objects = store('s3://outputs/run1');
    const bytes = randomBytes(19 * 1024 * 1024); // three parts
    const target = objects.target('v1.mp4');
    expect(target.location).toBe('s3://outputs/run1/v1.mp4');
    await target.prepare();
    const received = await target.receive(chunksOf(bytes));
    expect(received.bytes).toBe(bytes.length);
    expect(await objects.head('v1.mp4')).toBeUndefined();
    // The upload goes to a partial key: the final one is made by a copy that sets the sha256 with it.
    expect((await objects.unfinishedUploads()).map((u) => u.key)).toEqual(['run1/v1.mp4.gbatch-partial']);

    const digest = await received.finish();
    expect(digest).toBe(sha256(bytes));
    expect(await objects.head('v1.mp4')).toEqual({ bytes: bytes.length, sha256: digest });
    expect(sha256(await read('run1/v1.mp4'))).toBe(digest);
    expect(await objects.unfinishedUploads()).toEqual([]);
    expect(await keysUnder('run1/')).toEqual(['run1/v1.mp4']);
  });

  test('a video of one part or less is put whole on its final key with its sha256: no partial key, no copy', async () => {
    // Every server-side copy refused: the video must reach its key without one.
    const proxy = await startHoldProxy(moto.endpoint);
    proxy.refuseAll('copy', 403, 'AccessDenied');
    const objects = store('s3://outputs/run9', undefined, proxy.endpoint);
    const bytes = randomBytes(5 * 1024 * 1024 - 3);
    const target = objects.target('v9.mp4');
    await target.prepare();
    const received = await target.receive(chunksOf(bytes));
    expect(received.bytes).toBe(bytes.length);
    // Read whole, nothing sent yet: no object and no upload under the prefix until finished.
    expect(await keysUnder('run9/')).toEqual([]);
    expect(await objects.unfinishedUploads()).toEqual([]);
    const digest = await received.finish();
    expect(digest).toBe(sha256(bytes));
    const head = await moto.client.send(new HeadObjectCommand({ Bucket: 'outputs', Key: 'run9/v9.mp4' }));
    expect(head.Metadata).toEqual({ sha256: digest });
    expect(head.ContentType).toBe('video/mp4');
    expect(head.ETag).not.toMatch(/-\d+"$/); // one PutObject, not a multipart object nor its copy in parts
    expect(sha256(await read('run9/v9.mp4'))).toBe(digest);
    expect(await keysUnder('run9/')).toEqual(['run9/v9.mp4']);
    await proxy.close();
  });

  test('an upload a crashed run left is aborted before the key is written again; a discarded attempt leaves nothing', async () => {
    const objects = store('s3://outputs/run2');
    const bytes = randomBytes(17 * 1024 * 1024);
    // The crashed run: an upload begun and a part sent, never completed nor aborted (its process is gone).
    const begun = await moto.client.send(new CreateMultipartUploadCommand({ Bucket: 'outputs', Key: 'run2/v2.mp4' }));
    await moto.client.send(
      new UploadPartCommand({
        Bucket: 'outputs',
        Key: 'run2/v2.mp4',
        UploadId: begun.UploadId,
        PartNumber: 1,
        Body: bytes.subarray(0, 5 * 1024 * 1024),
      }),
    );
    expect((await objects.unfinishedUploads()).map((u) => u.key)).toEqual(['run2/v2.mp4']);

    const again = objects.target('v2.mp4');
    await again.prepare();
    expect(await objects.unfinishedUploads()).toEqual([]);
    const attempt = await again.receive(chunksOf(bytes));
    await attempt.discard();
    expect(await objects.unfinishedUploads()).toEqual([]);
    expect(await objects.head('v2.mp4')).toBeUndefined();
    expect(await keysUnder('run2/')).toEqual([]);
  });

  test('a partial object a crash left (completed, never copied) is deleted before the key is written again', async () => {
    const objects = store('s3://outputs/run5');
    await moto.client.send(
      new PutObjectCommand({ Bucket: 'outputs', Key: 'run5/v5.mp4.gbatch-partial', Body: Buffer.from('torn') }),
    );
    await objects.target('v5.mp4').prepare();
    expect(await keysUnder('run5/')).toEqual([]);
  });

  test('a sha256 known before the bytes: the upload begins on the final key, with no partial key nor copy', async () => {
    const objects = store('s3://outputs/run6');
    // More than the parts in flight and the stream's buffer hold: the upload has begun when receive() returns.
    const bytes = randomBytes(32 * 1024 * 1024);
    const target = objects.target('v6.mp4', sha256(bytes).toUpperCase());
    await target.prepare();
    const received = await target.receive(chunksOf(bytes));
    // Invisible until completed: an upload under the final key, no object there yet.
    expect((await objects.unfinishedUploads()).map((u) => u.key)).toEqual(['run6/v6.mp4']);
    expect(await keysUnder('run6/')).toEqual([]);

    expect(await received.finish()).toBe(sha256(bytes));
    expect(await objects.head('v6.mp4')).toEqual({ bytes: bytes.length, sha256: sha256(bytes) });
    expect(sha256(await read('run6/v6.mp4'))).toBe(sha256(bytes));
    expect(await objects.unfinishedUploads()).toEqual([]);
    expect(await keysUnder('run6/')).toEqual(['run6/v6.mp4']);
  });

  test('a body whose sha256 is not the expected one is never stored, and its upload is aborted', async () => {
    const objects = store('s3://outputs/run3');
    const bytes = randomBytes(32 * 1024 * 1024); // parts already sent when the mismatch is found
    const received = await objects.target('v3.mp4', 'ab'.repeat(32)).receive(chunksOf(bytes));
    expect((await objects.unfinishedUploads()).map((u) => u.key)).toEqual(['run3/v3.mp4']);
    await expect(received.finish()).rejects.toThrow(/sha256 [0-9a-f]{64} is not the expected a/);
    expect(await objects.head('v3.mp4')).toBeUndefined();
    expect(await objects.unfinishedUploads()).toEqual([]);
    expect(await keysUnder('run3/')).toEqual([]);
  });

  test('a video over the copy limit is copied to its final key in ranges, bytes and metadata whole', async () => {
    // The limit is S3's 5 GiB in use; here 1 MiB, so a 12 MiB video is copied in three 5 MiB ranges.
    const objects = store('s3://outputs/run7', { singleCopyBytes: 1024 * 1024, partBytes: 5 * 1024 * 1024 });
    const bytes = randomBytes(12 * 1024 * 1024 + 17);
    const target = objects.target('v7.mp4');
    await target.prepare();
    const digest = await (await target.receive(chunksOf(bytes))).finish();
    expect(digest).toBe(sha256(bytes));
    expect(sha256(await read('run7/v7.mp4'))).toBe(digest);
    const head = await moto.client.send(new HeadObjectCommand({ Bucket: 'outputs', Key: 'run7/v7.mp4' }));
    expect(head.Metadata).toEqual({ sha256: digest });
    expect(head.ContentType).toBe('video/mp4');
    expect(head.ContentLength).toBe(bytes.length);
    // A copy in parts shows as a multipart object: three parts, not one CopyObject.
    expect(head.ETag).toMatch(/-3"$/);
    expect(await objects.unfinishedUploads()).toEqual([]);
    expect(await keysUnder('run7/')).toEqual(['run7/v7.mp4']);
  });

  test('a copy in ranges that fails leaves nothing under the final key and no upload', async () => {
    // Ranges under S3's 5 MiB smallest part: the server refuses to complete the copy (EntityTooSmall).
    const objects = store('s3://outputs/run8', { singleCopyBytes: 1024 * 1024, partBytes: 1024 * 1024 });
    const bytes = randomBytes(6 * 1024 * 1024); // over one part: streamed to the partial key, then copied
    const target = objects.target('v8.mp4');
    await target.prepare();
    const received = await target.receive(chunksOf(bytes));
    await expect(received.finish()).rejects.toThrow(
      /^s3:\/\/outputs\/run8\/v8\.mp4: the storage refused the write \(EntityTooSmall, HTTP 400\)$/,
    );
    expect(await objects.head('v8.mp4')).toBeUndefined();
    expect(await objects.unfinishedUploads()).toEqual([]);
    await target.clear();
    expect(await keysUnder('run8/')).toEqual([]);
  });
});

describe.skipIf(MOTO_MISSING)('a whole object', () => {
  test('replaced only when its producer finishes; a failed producer leaves the old one', async () => {
    const objects = store('s3://outputs/run4');
    const first = await objects.putWhole('results.jsonl', async (write) => {
      await write([Buffer.from('{"a":1}\n'), Buffer.from('{"b":2}\n')]);
      return 'done';
    });
    expect(first).toEqual({ result: 'done', bytes: 16 });
    await expect(
      objects.putWhole('results.jsonl', async (write) => {
        await write([Buffer.from('{"torn":')]);
        throw new Error('the journal went away');
      }),
    ).rejects.toThrow('the journal went away');
    expect((await read('run4/results.jsonl')).toString()).toBe('{"a":1}\n{"b":2}\n');
  });
});

describe.skipIf(MOTO_MISSING)('the start check', () => {
  test('a writable bucket passes and leaves no probe behind', async () => {
    await store('s3://outputs/probe').probe();
    const listed = await moto.client.send(new ListObjectsV2Command({ Bucket: 'outputs', Prefix: 'probe/' }));
    expect(listed.KeyCount ?? 0).toBe(0);
  });

  test('a bucket that does not exist is one line naming the location', async () => {
    const error = await store('s3://no-such-bucket/p')
      .probe()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      's3://no-such-bucket/p/: cannot write --out there: the bucket does not exist (NoSuchBucket, HTTP 404)',
    );
  });
});
