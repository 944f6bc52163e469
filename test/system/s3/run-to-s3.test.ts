// `gbatch run --out s3://...` as a user runs it, against the simulator and moto_server on loopback: every
// video and results.jsonl land as objects whose bytes are the gateway's, and a location that cannot be
// written is exit 2 with one line before anything is sent.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { startHoldProxy } from '../../helpers/s3-hold-proxy.js';
import { s3Env, MOTO_MISSING, TEST_CREDENTIALS } from '../../helpers/s3-servers.js';
import { useMotoBucket } from '../../helpers/moto-bucket.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { filesUnder, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

const moto = useMotoBucket('campaign');

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await moto.server.client.send(new GetObjectCommand({ Bucket: 'campaign', Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await moto.server.client.send(new ListObjectsV2Command({ Bucket: 'campaign', Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test.skipIf(!BUILT || MOTO_MISSING)(
  'every video and results.jsonl land under the prefix, verified by sha256',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v/1', 'A lantern on a pier'),
      videoRow('v2', 'Fog over a harbour'),
      videoRow('v3', 'A heron at dawn'),
      chatRow('c1', 'Name a river.'),
    ]);
    const result = await runCli(
      ['run', manifest, '--state', ws.state, '--out', 's3://campaign/night-1', '--poll-interval', '0.05', '--json'],
      { env: { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(stdoutJson(result).out).toBe('s3://campaign/night-1');
    expect(await keysUnder('night-1/')).toEqual([
      'night-1/results.jsonl',
      'night-1/v%2F1.mp4',
      'night-1/v2.mp4',
      'night-1/v3.mp4',
    ]);
    const journal = readJournal(ws.state);
    for (const [id, stem] of [
      ['v/1', 'v%2F1'],
      ['v2', 'v2'],
      ['v3', 'v3'],
    ] as const) {
      const key = `night-1/${stem}.mp4`;
      expect(sha256(await objectBytes(key))).toBe(SIM_VIDEO_SHA256);
      const head = await moto.server.client.send(new HeadObjectCommand({ Bucket: 'campaign', Key: key }));
      expect(head.Metadata?.sha256).toBe(SIM_VIDEO_SHA256);
      expect(journal.byId.get(id)).toMatchObject({
        state: 'downloaded',
        outputPath: `s3://campaign/${key}`,
        sha256: SIM_VIDEO_SHA256,
      });
    }
    const lines = (await objectBytes('night-1/results.jsonl'))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { custom_id: string; response: { body: { file?: string } } });
    expect(lines.map((l) => l.custom_id).sort()).toEqual(['c1', 'v/1', 'v2', 'v3']);
    expect(lines.find((l) => l.custom_id === 'v2')!.response.body.file).toBe('s3://campaign/night-1/v2.mp4');
    expect(journal.byId.get('c1')).toMatchObject({
      state: 'downloaded',
      outputPath: 's3://campaign/night-1/results.jsonl',
    });
    // The credentials are in no file of the job (the journal included) and in nothing gbatch printed.
    const reads = await Promise.all([
      ...['table', 'json', 'csv'].map((format) => runCli(['report', '--state', ws.state, '--format', format])),
      runCli(['status', '--state', ws.state, '--json']),
    ]);
    const outputs = [result, ...reads];
    expect(outputs.map((o) => o.code)).toEqual([0, 0, 0, 0, 0]);
    const secrets = [TEST_CREDENTIALS.secretAccessKey, TEST_CREDENTIALS.accessKeyId];
    for (const file of filesUnder(ws.dir))
      for (const secret of secrets) expect(readFileSync(file).includes(secret), file).toBe(false);
    for (const output of outputs)
      for (const secret of secrets) expect(output.stdout + output.stderr).not.toContain(secret);
    expect(outputs[2]!.stdout).toContain('s3://campaign/night-1/v2.mp4');
  },
  // Three CLI starts and four videos through moto_server: over 30 s on a loaded host.
  120_000,
);

test.skipIf(!BUILT || MOTO_MISSING)(
  'a bucket that does not exist: exit 2, one line, nothing sent, no journal',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier')]);
    const result = await runCli(['run', manifest, '--state', ws.state, '--out', 's3://no-such-bucket/x'], {
      env: { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'gbatch run: s3://no-such-bucket/x/: cannot write --out there: the bucket does not exist (NoSuchBucket, HTTP 404)',
    ]);
    expect(posts(sim.ledger)).toBe(0);
    expect(existsSync(ws.state)).toBe(false);
  },
);

test.skipIf(!BUILT || MOTO_MISSING)(
  'credentials in the location or the endpoint are refused, and not echoed',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier')]);
    const env = { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) };
    const inLocation = await runCli(['run', manifest, '--state', ws.state, '--out', 's3://AKIAX:hunter2@campaign/x'], {
      env,
    });
    expect(inLocation.code).toBe(2);
    expect(inLocation.stderr).toMatch(/--out: an s3:\/\/ location must not carry credentials/);
    const endpoint = moto.server.endpoint.replace('http://', 'http://AKIAX:hunter2@');
    const inEndpoint = await runCli(
      ['run', manifest, '--state', ws.state, '--out', 's3://campaign/x', '--s3-endpoint', endpoint],
      { env },
    );
    expect(inEndpoint.code).toBe(2);
    expect(inEndpoint.stderr).toMatch(/--s3-endpoint: the URL must not carry credentials/);
    for (const printed of [inLocation.stderr, inEndpoint.stderr]) expect(printed).not.toContain('hunter2');
    expect(posts(sim.ledger)).toBe(0);
  },
);

test.skipIf(!BUILT || MOTO_MISSING)(
  'a write refused during the run stops it with one line naming the object and the reason; the video waits',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const proxy = await startHoldProxy(moto.server.endpoint);
    try {
      // The probe's PutObject passes; the video's own (a small video is put whole) is then refused, as by a policy
      // on the prefix's videos.
      proxy.refuseAll('whole-video', 403, 'AccessDenied');
      const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier')]);
      const result = await runCli(
        ['run', manifest, '--state', ws.state, '--out', 's3://campaign/refused', '--poll-interval', '0.05'],
        { env: { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(proxy.endpoint) } },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        'cannot write s3://campaign/refused/v1.mp4: writing there is refused (AccessDenied, HTTP 403); stopping:',
      );
      expect(readJournal(ws.state).byId.get('v1')).toMatchObject({ state: 'succeeded', outputPath: null });
    } finally {
      await proxy.close();
    }
  },
);
