// The dashboard's links to s3:// outputs (simulator and moto_server on loopback): a row's page links its
// video to a route of the dashboard that streams the object with the dashboard's own credentials, behind
// the same sign-in as every page; the bytes are the gateway's, a Range is honoured, no credential shows.
import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../helpers/cli.js';
import { videoRow, writeJsonl } from '../helpers/manifests.js';
import { s3Env, MOTO_MISSING, TEST_CREDENTIALS } from '../helpers/s3-servers.js';
import { useMotoBucket } from '../helpers/moto-bucket.js';
import { KEY, startSim } from '../helpers/sim.js';
import { bearer, startUiChild, unescape } from '../helpers/ui.js';
import { SIM_VIDEO_SHA256, workspace } from '../helpers/workspace.js';

const moto = useMotoBucket('reels');

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test.skipIf(!BUILT || MOTO_MISSING)(
  "a row's s3:// output opens through the dashboard, signed in, with the gateway's bytes",
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier')]);
    const env = { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) };
    const ran = await runCli(
      ['run', manifest, '--state', ws.state, '--out', 's3://reels/week-1', '--poll-interval', '0.05'],
      { env },
    );
    expect(ran.code, ran.stderr).toBe(0);

    const ui = await startUiChild(['--state-dir', ws.path('state')], { env: s3Env(moto.server.endpoint) });
    try {
      const row = await (await fetch(`${ui.url}jobs/job/rows/v1`, { headers: bearer() })).text();
      expect(row).toContain('<code class="output">s3://reels/week-1/v1.mp4</code>');
      const href = unescape(/<a class="output-link" href="([^"]+)">open<\/a>/.exec(row)![1]!);
      expect(href).toBe('/jobs/job/rows/v1/output');

      const whole = await fetch(new URL(href, ui.url), { headers: bearer() });
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('video/mp4');
      const bytes = Buffer.from(await whole.arrayBuffer());
      expect(sha256(bytes)).toBe(SIM_VIDEO_SHA256);
      expect(whole.headers.get('content-length')).toBe(String(bytes.length));

      const part = await fetch(new URL(href, ui.url), { headers: { ...bearer(), range: 'bytes=10-99' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 10-99/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 100))).toBe(true);

      // Not signed in: refused like any page; a row without an object-storage output has no such route.
      const anonymous = await fetch(new URL(href, ui.url), { redirect: 'manual' });
      expect([302, 303, 401]).toContain(anonymous.status);
      expect(anonymous.headers.get('content-type') ?? '').not.toContain('video');
      const none = await fetch(`${ui.url}jobs/job/rows/no-such-row/output`, { headers: bearer() });
      expect(none.status).toBe(404);

      await ui.stop();
      const said = await ui.cli.result;
      for (const text of [row, said.stdout, said.stderr]) {
        expect(text).not.toContain(TEST_CREDENTIALS.secretAccessKey);
        expect(text).not.toContain(TEST_CREDENTIALS.accessKeyId);
      }
    } finally {
      ui.cli.child.kill('SIGKILL');
      await sim.close();
    }
  },
  90_000,
);
