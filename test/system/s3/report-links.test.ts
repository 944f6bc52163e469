// `report` of a run that wrote to object storage (simulator and moto_server on loopback): every format names
// each video by its s3:// URI; the HTML page adds presigned links only when --presign-links is given, and a
// link gets the very bytes; no output carries the secret key (nor, without links, the key id).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { s3Env, MOTO_MISSING, TEST_CREDENTIALS } from '../../helpers/s3-servers.js';
import { useMotoBucket } from '../../helpers/moto-bucket.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

const moto = useMotoBucket('reels');

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test.skipIf(!BUILT || MOTO_MISSING)(
  's3:// URIs in every format; presigned links in the HTML page only when asked, and they work',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A lantern on a pier'),
      videoRow('v2', 'Fog over a harbour'),
    ]);
    const env = { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) };
    const ran = await runCli(
      ['run', manifest, '--state', ws.state, '--out', 's3://reels/week-1', '--poll-interval', '0.05'],
      { env },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const uris = ['s3://reels/week-1/v1.mp4', 's3://reels/week-1/v2.mp4'];
    const everything: string[] = [ran.stdout, ran.stderr];

    const json = await runCli(['report', '--state', ws.state, '--format', 'json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const items = stdoutJson<{ items: Array<{ output: string }> }>(json).items;
    expect(items.map((i) => i.output).sort()).toEqual(uris);
    const table = await runCli(['report', '--state', ws.state], { env });
    expect(table.code, table.stderr).toBe(0);
    const plain = await runCli(['report', '--state', ws.state, '--format', 'html'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    for (const uri of uris) expect(plain.stdout).toContain(`<code class="output">${uri}</code>`);
    expect(plain.stdout).not.toContain('class="presigned"');
    everything.push(json.stdout, json.stderr, table.stdout, table.stderr, plain.stdout, plain.stderr);
    for (const text of everything) {
      expect(text).not.toContain(TEST_CREDENTIALS.secretAccessKey);
      expect(text).not.toContain(TEST_CREDENTIALS.accessKeyId);
    }

    const linked = await runCli(
      ['report', '--state', ws.state, '--format', 'html', '--presign-links', '15m', '--output', ws.path('r.html')],
      { env },
    );
    expect(linked.code, linked.stderr).toBe(0);
    const page = readFileSync(ws.path('r.html'), 'utf8');
    const links = [...page.matchAll(/<a class="presigned" href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(links).toHaveLength(2);
    for (const link of links) {
      expect(link).toMatch(/X-Amz-Expires=900/);
      const answer = await fetch(link);
      expect(answer.status).toBe(200);
      expect(sha256(Buffer.from(await answer.arrayBuffer()))).toBe(SIM_VIDEO_SHA256);
    }
    // A presigned link names the access key id (that is how S3 checks it); the secret is never written.
    expect(page + linked.stdout + linked.stderr).not.toContain(TEST_CREDENTIALS.secretAccessKey);
  },
  90_000,
);

test.skipIf(!BUILT)('--presign-links: html only, and a duration of at most 7 days', async () => {
  const ws = workspace();
  const notHtml = await runCli(['report', '--state', ws.state, '--format', 'json', '--presign-links', '1h']);
  expect(notHtml.code).toBe(2);
  expect(notHtml.stderr).toContain('--presign-links goes with --format html only');
  const tooLong = await runCli(['report', '--state', ws.state, '--format', 'html', '--presign-links', '8d']);
  expect(tooLong.code).toBe(2);
  expect(tooLong.stderr).toContain('--presign-links: a link lasts 1 second to 7 days');
});
