// A run writing videos to object storage, SIGKILLed at each step of an upload (a part on its way, the
// completion, the metadata copy): held there by a proxy in front of moto_server, so the kill lands at
// that exact point. After each kill no final key holds part of a video; the run that resumes aborts what
// the killed ones left (no multipart upload remains), sends no task twice, and every object's sha256 is
// the gateway's bytes'.
import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { paddedVideo, videoAsset } from '../../../src/sim/video-asset.js';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { startHoldProxy, type HeldStep } from '../../helpers/s3-hold-proxy.js';
import { s3Env, MOTO_MISSING, startMoto, type S3Server } from '../../helpers/s3-servers.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const VIDEO_BYTES = 6 * 1024 * 1024; // two parts of a 5 MiB part size
const BUCKET = 'crash';
let moto: S3Server;

beforeAll(async () => {
  if (MOTO_MISSING) return;
  moto = await startMoto();
  await moto.createBucket(BUCKET);
});

afterAll(async () => {
  await moto?.close();
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await moto.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

async function videoKeys(): Promise<string[]> {
  const listed = await moto.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'night/' }));
  return (listed.Contents ?? []).map((o) => o.Key!).filter((key) => key.endsWith('.mp4'));
}

async function allKeys(): Promise<string[]> {
  const listed = await moto.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'night/' }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

async function unfinishedUploads(): Promise<string[]> {
  const listed = await moto.client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
  return (listed.Uploads ?? []).map((u) => u.Key!);
}

test.skipIf(!BUILT || MOTO_MISSING)(
  'killed at each step of an upload: no partial object, no upload left after the resume, no task sent twice',
  async () => {
    const ws = workspace();
    const sim = await startSim({ videoBytes: VIDEO_BYTES });
    const expected = sha256(paddedVideo(videoAsset(), VIDEO_BYTES));
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('a', 'A lantern on a pier'),
      videoRow('b', 'Fog over a harbour'),
    ]);
    const proxy = await startHoldProxy(moto.endpoint);
    try {
      const args = ['run', manifest, '--state', ws.state, '--out', `s3://${BUCKET}/night`, '--poll-interval', '0.05'];
      const env = { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(proxy.endpoint) };
      const leftBehind: string[] = [];
      for (const step of ['part', 'complete', 'copy'] satisfies HeldStep[]) {
        const held = proxy.holdNext(step);
        const run = startCli(args, { env });
        const exited = run.result.then((r) => {
          throw new Error(`the run exited (${r.code}) before its ${step} was held: ${r.stderr}`);
        });
        await Promise.race([held, exited]);
        run.child.kill('SIGKILL');
        await run.result;
        proxy.release();
        // Whatever is under a final key is a whole video, with its sha256 as metadata already.
        for (const key of await videoKeys()) {
          expect(sha256(await objectBytes(key)), `${step}: ${key}`).toBe(expected);
          const head = await moto.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
          expect(head.Metadata?.sha256, `${step}: ${key}'s metadata`).toBe(expected);
        }
        leftBehind.push(...(await unfinishedUploads()));
      }
      // The killed runs did leave uploads behind: the part and the completion were held.
      expect(leftBehind.length).toBeGreaterThanOrEqual(2);

      const last = await runCli(args, { env });
      expect(last.code, last.stderr).toBe(0);
      expect(await unfinishedUploads()).toEqual([]);
      expect((await videoKeys()).sort()).toEqual(['night/a.mp4', 'night/b.mp4']);
      // Nothing of the attempts is left beside them (no partial object).
      expect((await allKeys()).sort()).toEqual(['night/a.mp4', 'night/b.mp4', 'night/results.jsonl']);
      for (const key of await videoKeys()) {
        expect(sha256(await objectBytes(key))).toBe(expected);
        const head = await moto.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
        expect(head.Metadata?.sha256).toBe(expected);
      }
      const journal = readJournal(ws.state);
      for (const id of ['a', 'b'])
        expect(journal.byId.get(id)).toMatchObject({ state: 'downloaded', sha256: expected, bytes: VIDEO_BYTES });
      expect(duplicates(sim.ledger)).toEqual({});
      expect(posts(sim.ledger)).toBe(2);
    } finally {
      await proxy.close();
    }
  },
);
