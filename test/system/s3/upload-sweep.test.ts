// Uploads a killed run left for rows that will never be downloaded again are aborted at the next run's end
// (CLI, simulator and moto_server on loopback): listed after, none is left for this job's rows, while an
// upload under the same prefix that is not one of its rows' is left alone.
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { s3Env, MOTO_MISSING } from '../../helpers/s3-servers.js';
import { useMotoBucket } from '../../helpers/moto-bucket.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const moto = useMotoBucket('sweep');

async function uploadKeys(): Promise<string[]> {
  const listed = await moto.server.client.send(new ListMultipartUploadsCommand({ Bucket: 'sweep' }));
  return (listed.Uploads ?? []).map((u) => u.Key!).sort();
}

const begin = (key: string) => moto.server.client.send(new CreateMultipartUploadCommand({ Bucket: 'sweep', Key: key }));

test.skipIf(!BUILT || MOTO_MISSING)(
  "a done row's leftover uploads and partial object are swept; others' are left",
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier'), videoRow('v2', 'Fog')]);
    const env = { ...gatewayEnv(sim.baseUrl, KEY), ...s3Env(moto.server.endpoint) };
    const args = ['run', manifest, '--state', ws.state, '--out', 's3://sweep/night', '--poll-interval', '0.05'];
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);
    // What killed runs could have left: uploads of v1's key and its partial key, a partial object of v2, and
    // an upload that is no row of this job.
    await begin('night/v1.mp4');
    await begin('night/v1.mp4.gbatch-partial');
    await begin('night/v2.mp4.gbatch-partial');
    await moto.server.client.send(
      new PutObjectCommand({ Bucket: 'sweep', Key: 'night/v2.mp4.gbatch-partial', Body: 'x' }),
    );
    await begin('night/someone-else.mp4');
    expect(await uploadKeys()).toHaveLength(4);

    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /aborted the uploads a stopped run left for 2 row\(s\) that are done: v1\.mp4, v2\.mp4/,
    );
    expect(await uploadKeys()).toEqual(['night/someone-else.mp4']);
    const keys = await moto.server.client.send(new ListObjectsV2Command({ Bucket: 'sweep', Prefix: 'night/' }));
    expect((keys.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      'night/results.jsonl',
      'night/v1.mp4',
      'night/v2.mp4',
    ]);
    expect(posts(sim.ledger)).toBe(2);
  },
  60_000,
);
