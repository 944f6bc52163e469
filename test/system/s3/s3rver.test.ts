// `gbatch run --out s3://...` against s3rver, a second S3-compatible server, which checks each request's
// access key: a run stores its video and results there, and credentials it refuses are exit 2 with one
// line before anything is sent, the secret printed nowhere.
import { createHash } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { clientOf, S3RVER_CREDENTIALS, startS3rver } from '../../helpers/s3-servers.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'a run stores its video and results; refused credentials are exit 2 before anything is sent',
  async () => {
    const ws = workspace();
    const storage = await startS3rver(ws.path('s3rver'), ['media']);
    try {
      const sim = await startSim();
      const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A lantern on a pier')]);
      const args = ['run', manifest, '--state', ws.state, '--out', 's3://media/run', '--poll-interval', '0.05'];
      const env = (secretAccessKey: string, accessKeyId = S3RVER_CREDENTIALS.accessKeyId) => ({
        ...gatewayEnv(sim.baseUrl, KEY),
        AWS_ENDPOINT_URL: storage.endpoint,
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: secretAccessKey,
        AWS_REGION: 'us-east-1',
      });

      // s3rver checks the access key id (not yet a v4 signature): a key it does not know is refused.
      const unknownKey = await runCli(args, { env: env('not-the-secret-93f1', 'AKIAUNKNOWN0000') });
      expect(unknownKey.code, unknownKey.stderr).toBe(2);
      expect(unknownKey.stderr.trim().split('\n')).toEqual([
        'gbatch run: s3://media/run/: cannot write --out there: the credentials were refused (InvalidAccessKeyId, HTTP 403)',
      ]);
      expect(unknownKey.stdout + unknownKey.stderr).not.toContain('93f1');
      expect(posts(sim.ledger)).toBe(0);

      const run = await runCli(args, { env: env(S3RVER_CREDENTIALS.secretAccessKey) });
      expect(run.code, run.stderr).toBe(0);
      const client = clientOf(storage.endpoint, S3RVER_CREDENTIALS);
      try {
        const read = async (key: string): Promise<Buffer> => {
          const answer = await client.send(new GetObjectCommand({ Bucket: 'media', Key: key }));
          return Buffer.from(await answer.Body!.transformToByteArray());
        };
        expect(
          createHash('sha256')
            .update(await read('run/v1.mp4'))
            .digest('hex'),
        ).toBe(SIM_VIDEO_SHA256);
        expect((await read('run/results.jsonl')).toString('utf8')).toContain('"file":"s3://media/run/v1.mp4"');
      } finally {
        client.destroy();
      }
    } finally {
      await storage.close();
    }
  },
);
