// Runners on several hosts, one PostgreSQL journal, one s3:// prefix: each video is written once, by the
// runner that downloads it, and results.jsonl (uploaded whole, the runners taking turns) ends with every
// row's line; no object is clobbered, no upload left behind, no task sent twice.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { RunnerPool, runnerArgs } from '../../helpers/runners.js';
import { MOTO_MISSING, s3Env, startMoto, type S3Server } from '../../helpers/s3-servers.js';
import { duplicates } from '../../helpers/sim.js';
import { SIM_VIDEO_SHA256 } from '../../helpers/workspace.js';

const API_KEY = 'sk-pg-s3';
const dir = mkdtempSync(join(tmpdir(), 'gbatch-pgs3-'));
let moto: S3Server | undefined;

beforeAll(async () => {
  if (MOTO_MISSING || !pgAvailable()) return;
  moto = await startMoto();
  await moto.createBucket('shared');
});

afterAll(async () => {
  await moto?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(MOTO_MISSING || !pgAvailable())('two runners, one journal, one prefix', () => {
  const db = usePgSchema('gbatch_pgs3');

  test('every video once, whole; results.jsonl has every row', async () => {
    assertBuilt();
    const s3 = moto!;
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 5, taskSeconds: 0.2 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const ids = Array.from({ length: 8 }, (_, i) => `v${i}`);
      const manifest = writeJsonl(
        join(dir, 'night.jsonl'),
        ids.map((id) => videoRow(id, `prompt of ${id}`)),
      );
      const pool = new RunnerPool(runnerArgs(manifest, db.url(), 's3://shared/night'), gateway, s3Env(s3.endpoint));
      pool.start(2);
      const ended = await pool.all();
      for (const end of ended) expect(end.code, describeEnd('runner', end)).toBe(0);

      const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: 'shared', Prefix: 'night/' }));
      const keys = (listed.Contents ?? []).map((o) => o.Key!).sort();
      expect(keys).toEqual([...ids.map((id) => `night/${id}.mp4`), 'night/results.jsonl'].sort());
      for (const id of ids) {
        const key = `night/${id}.mp4`;
        const got = await s3.client.send(new GetObjectCommand({ Bucket: 'shared', Key: key }));
        expect(sha256(Buffer.from(await got.Body!.transformToByteArray()))).toBe(SIM_VIDEO_SHA256);
        const head = await s3.client.send(new HeadObjectCommand({ Bucket: 'shared', Key: key }));
        expect(head.Metadata?.sha256).toBe(SIM_VIDEO_SHA256);
      }
      const results = await s3.client.send(new GetObjectCommand({ Bucket: 'shared', Key: 'night/results.jsonl' }));
      const lines = (await results.Body!.transformToString()).trimEnd().split('\n');
      expect(lines.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id).sort()).toEqual(ids);
      const uploads = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: 'shared' }));
      expect(uploads.Uploads ?? []).toEqual([]);
      expect(duplicates(sim.ledger)).toEqual({});
    } finally {
      await sim.close();
    }
  });
});
