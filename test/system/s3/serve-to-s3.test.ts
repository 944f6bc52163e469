// `gbatch serve --data s3://...` as a user runs it, with the official `openai` SDK as its client, the simulator
// as the gateway and moto_server as the storage, all on loopback: the uploads and every video are objects under
// the prefix, read back through the Files API; the catalog and journals stay in --journal; a location that
// cannot be written is exit 2 with one line before the server listens.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BIN, BUILT } from '../../helpers/cli.js';
import { s3Env, MOTO_MISSING, startMoto, TEST_CREDENTIALS, type S3Server } from '../../helpers/s3-servers.js';
import { batchEnd, client, filesOf, startServe, submitBatch, TOKEN_A, videoLine } from '../../helpers/serve.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ROOT, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

let moto: S3Server;
const pg = usePgSchema('gbatch_serve_s3');

beforeAll(async () => {
  if (MOTO_MISSING) return;
  moto = await startMoto();
  await moto.createBucket('media');
});

afterAll(async () => {
  await moto?.close();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await moto.client.send(new ListObjectsV2Command({ Bucket: 'media', Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectText(key: string): Promise<string> {
  const answer = await moto.client.send(new GetObjectCommand({ Bucket: 'media', Key: key }));
  return answer.Body!.transformToString();
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test.skipIf(!BUILT || MOTO_MISSING)(
  'a video batch through the openai SDK: input and videos are objects, every output read back',
  async () => {
    const ws = workspace('gbatch-serve-s3-');
    const sim = await startSim();
    const server = await startServe({
      data: 's3://media/serve-1',
      gateway: sim.baseUrl,
      args: ['--journal', ws.path('state/serve.db')],
      env: s3Env(moto.endpoint),
    });
    const openai = client(server);
    const created = await submitBatch(
      openai,
      ws.path('in.jsonl'),
      [videoLine('v1', 'A lantern on a pier'), videoLine('v2', 'Fog over a harbour')],
      { endpoint: '/v1/video/generations' },
    );
    expect(await batchEnd(server, created.id)).toBe('completed');

    const keys = await keysUnder('serve-1/');
    expect(keys).toEqual([
      `serve-1/files/${created.input_file_id}.jsonl`,
      `serve-1/out/${created.id}/results.jsonl`,
      `serve-1/out/${created.id}/v1.mp4`,
      `serve-1/out/${created.id}/v2.mp4`,
    ]);
    expect(await objectText(`serve-1/files/${created.input_file_id}.jsonl`)).toContain('A lantern on a pier');
    for (const name of ['v1', 'v2']) {
      const head = await moto.client.send(
        new HeadObjectCommand({ Bucket: 'media', Key: `serve-1/out/${created.id}/${name}.mp4` }),
      );
      expect(head.Metadata?.sha256).toBe(SIM_VIDEO_SHA256);
    }
    // The journals and catalog are where --journal is; nothing of the files is kept on disk but the
    // uploads as received.
    expect(existsSync(ws.path(`state/journals/${created.id}.db`))).toBe(true);
    expect(readdirSync(ws.path('state/files'))).toEqual([`${created.input_file_id}.jsonl`]);

    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect(errors).toEqual([]);
    expect(output.map((line) => line.custom_id).sort()).toEqual(['v1', 'v2']);
    for (const line of output) {
      const body = (line.response as { body: { file_id: string; sha256: string } }).body;
      expect(body.sha256).toBe(SIM_VIDEO_SHA256);
      const video = Buffer.from(await (await openai.files.content(body.file_id)).arrayBuffer());
      expect(sha256(video)).toBe(SIM_VIDEO_SHA256);
      // A Range is served from the object too.
      const part = await fetch(`${server.url}/files/${body.file_id}/content`, {
        headers: { authorization: `Bearer ${TOKEN_A}`, range: 'bytes=0-9' },
      });
      expect(part.status).toBe(206);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(video.subarray(0, 10));
    }
    const input = await (await openai.files.content(created.input_file_id)).text();
    expect(input).toContain('Fog over a harbour');

    // A client deleting a video deletes its object.
    const first = (output[0]!.response as { body: { file_id: string } }).body.file_id;
    await openai.files.delete(first);
    expect((await keysUnder(`serve-1/out/${created.id}/`)).filter((k) => k.endsWith('.mp4'))).toHaveLength(1);

    await server.stop();
    const all = `${server.stderr()}`;
    expect(all).not.toContain(TEST_CREDENTIALS.secretAccessKey);
    expect(all).not.toContain(TEST_CREDENTIALS.accessKeyId);
  },
  60_000,
);

test.skipIf(!BUILT || MOTO_MISSING || !pgAvailable())(
  'on a PostgreSQL journal: the input and the video are objects under the prefix, read back',
  async () => {
    const ws = workspace('gbatch-serve-s3-pg-');
    const sim = await startSim();
    const server = await startServe({
      data: 's3://media/serve-pg',
      gateway: sim.baseUrl,
      args: ['--journal', PG_TEST_URL],
      env: { ...s3Env(moto.endpoint), PGOPTIONS: `-c search_path=${pg.schema}` },
    });
    const openai = client(server);
    const created = await submitBatch(openai, ws.path('in.jsonl'), [videoLine('v1', 'A kite at dusk')], {
      endpoint: '/v1/video/generations',
    });
    expect(await batchEnd(server, created.id)).toBe('completed');
    expect(await keysUnder('serve-pg/')).toEqual([
      `serve-pg/files/${created.input_file_id}.jsonl`,
      `serve-pg/out/${created.id}/results.jsonl`,
      `serve-pg/out/${created.id}/v1.mp4`,
    ]);
    const { output, errors } = await filesOf(openai, await openai.batches.retrieve(created.id));
    expect(errors).toEqual([]);
    const body = (output[0]!.response as { body: { file_id: string } }).body;
    const video = Buffer.from(await (await openai.files.content(body.file_id)).arrayBuffer());
    expect(sha256(video)).toBe(SIM_VIDEO_SHA256);
    expect(await (await openai.files.content(created.input_file_id)).text()).toContain('A kite at dusk');
    await server.stop();
    expect(server.stderr()).not.toContain(TEST_CREDENTIALS.secretAccessKey);
  },
  60_000,
);

function serveOnce(args: string[], env: Record<string, string>): { code: number | null; stderr: string } {
  const child = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, GATEWAY_BASE_URL: 'http://127.0.0.1:9', GATEWAY_API_KEY: KEY, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: child.status, stderr: child.stderr };
}

test.skipIf(!BUILT || MOTO_MISSING)('a bucket that does not exist: exit 2, one line, before listening', () => {
  const ws = workspace('gbatch-serve-s3-');
  const result = serveOnce(['--no-auth', '--data', 's3://no-such-bucket/x', '--journal', ws.path('serve.db')], {
    ...s3Env(moto.endpoint),
  });
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/s3:\/\/no-such-bucket\/x\/: cannot write --data there: the bucket does not exist/),
  ]);
  expect(existsSync(ws.path('serve.db'))).toBe(false);
});

test.skipIf(!BUILT || MOTO_MISSING)('s3:// --data without --journal: exit 2, naming what is missing', () => {
  const result = serveOnce(['--no-auth', '--data', 's3://media/x'], s3Env(moto.endpoint));
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/--data s3:\/\/media\/x holds files only: give --journal/),
  ]);
});

test.skipIf(!BUILT)('an s3:// --data carrying credentials is refused without echoing them', () => {
  const result = serveOnce(['--no-auth', '--data', 's3://AKIAX:hunter2-secret@media/x', '--journal', 'x.db'], {});
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('must not carry credentials');
  expect(result.stderr).not.toContain('hunter2-secret');
});
