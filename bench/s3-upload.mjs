// S3 upload (issue 36): gbatch's upload path for a video (the object store's target: multipart upload to the
// partial key with sha256 on the way, then the server-side copy to the final key with the metadata) against
// the SDK's own `Upload` of the same bytes (what `aws s3 cp` does), to an S3-compatible server on loopback
// (moto_server, or s3rver in a child process), in one run, rounds alternating. Both use 5 MiB parts, 4 in
// flight. Also timed: gbatch's path when the sha256 is known before the bytes (the upload begins on the final
// key with the metadata; no partial key, no copy), and the server-side copy alone (what the servers' copy costs
// differs: moto stores the object again in Python, s3rver copies a file).
// Usage: npm run build && node bench/s3-upload.mjs [--mb N] [--rounds N] [--server moto|s3rver]
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { CopyObjectCommand, CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { flag, machine, median, report, requireBuild, root } from './lib/harness.mjs';
import { startMoto } from './lib/moto.mjs';
import { S3RVER_CREDENTIALS, startS3rver } from './lib/s3rver.mjs';

const MB = Number(flag('mb', '256'));
const ROUNDS = Number(flag('rounds', '3'));
const SERVER = flag('server', 'moto');
if (SERVER !== 'moto' && SERVER !== 's3rver') throw new Error(`--server: moto or s3rver, not ${SERVER}`);
const CHUNK = randomBytes(1024 * 1024);

function* body() {
  for (let i = 0; i < MB; i++) yield CHUNK;
}

requireBuild();
process.env.AWS_ACCESS_KEY_ID = SERVER === 's3rver' ? S3RVER_CREDENTIALS.accessKeyId : 'AKIABENCHGBATCH00001';
process.env.AWS_SECRET_ACCESS_KEY = SERVER === 's3rver' ? S3RVER_CREDENTIALS.secretAccessKey : 'bench-secret';
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const load = loadavg()[0];
const server = SERVER === 's3rver' ? await startS3rver(root) : await startMoto();
try {
  const client = new S3Client({
    endpoint: server.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const { createS3Store } = await import(`${root}/dist/io/s3/s3-store.js`);
  const { parseObjectLocation } = await import(`${root}/dist/core/object-location.js`);
  const store = createS3Store(parseObjectLocation('s3://bench/gbatch'), { endpoint: server.endpoint });

  const ours = async (round) => {
    const target = store.target(`r${round}.mp4`);
    await target.prepare();
    const received = await target.receive(Readable.from(body()));
    await received.finish();
  };
  // gbatch's path when the video's sha256 is known before its bytes: the upload begins on the final key with
  // the metadata and is completed once the bytes match; no partial key, no copy.
  const bodySha256 = (() => {
    const hash = createHash('sha256');
    for (const chunk of body()) hash.update(chunk);
    return hash.digest('hex');
  })();
  const oursKnown = async (round) => {
    const target = store.target(`known-r${round}.mp4`, bodySha256);
    await target.prepare();
    const received = await target.receive(Readable.from(body()));
    await received.finish();
  };
  const sdk = async (round) => {
    await new Upload({
      client,
      params: { Bucket: 'bench', Key: `sdk/r${round}.mp4`, Body: Readable.from(body()), ContentType: 'video/mp4' },
      partSize: 5 * 1024 * 1024,
      queueSize: 4,
    }).done();
  };
  // The server-side copy alone, of an object of the same size (the step gbatch's path adds).
  const copyOnly = async (round) => {
    await client.send(
      new CopyObjectCommand({
        Bucket: 'bench',
        Key: `copy/r${round}.mp4`,
        CopySource: `bench/sdk/r${round}.mp4`,
        MetadataDirective: 'REPLACE',
        Metadata: { sha256: bodySha256 },
        ContentType: 'video/mp4',
      }),
    );
  };
  const timed = async (fn, round) => {
    const start = performance.now();
    await fn(round);
    return (performance.now() - start) / 1000;
  };
  const oursS = [];
  const sdkS = [];
  const knownS = [];
  const copyS = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first, so neither always meets a warmer or a colder server.
    if (round % 2 === 0) {
      oursS.push(await timed(ours, round));
      sdkS.push(await timed(sdk, round));
    } else {
      sdkS.push(await timed(sdk, round));
      oursS.push(await timed(ours, round));
    }
    knownS.push(await timed(oursKnown, round));
    copyS.push(await timed(copyOnly, round));
  }
  store.close();
  client.destroy();
  const oursMBs = MB / median(oursS);
  const sdkMBs = MB / median(sdkS);
  report({
    name: 's3-upload',
    server: SERVER,
    mb: MB,
    rounds: ROUNDS,
    gbatch_mb_s: Number(oursMBs.toFixed(1)),
    sdk_upload_mb_s: Number(sdkMBs.toFixed(1)),
    ratio: Number((oursMBs / sdkMBs).toFixed(3)),
    gbatch_known_sha256_mb_s: Number((MB / median(knownS)).toFixed(1)),
    known_sha256_ratio: Number((MB / median(knownS) / sdkMBs).toFixed(3)),
    gbatch_s: oursS.map((s) => Number(s.toFixed(2))),
    sdk_s: sdkS.map((s) => Number(s.toFixed(2))),
    gbatch_known_sha256_s: knownS.map((s) => Number(s.toFixed(2))),
    server_copy_s: copyS.map((s) => Number(s.toFixed(2))),
    load_at_start: Number(load.toFixed(1)),
    machine: machine(),
    date: new Date().toISOString(),
  });
} finally {
  server.stop();
}
