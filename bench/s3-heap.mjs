// S3 heap proof (issue 36): one video of 2 GB (by default) streamed by `gbatch run --out s3://...` from the
// simulator (which pads its MP4 to that size) into moto_server on loopback, with the process's V8 heap capped
// at 256 MB (--max-old-space-size=256). It must finish exit 0 with the object's sha256 recorded; its peak RSS
// is reported. Long (minutes) and heavy on the storage server: a benchmark, out of `npm test`.
// Usage: npm run build && node bench/s3-heap.mjs [--mb 2048]
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { flag, machine, removeDir, report, requireBuild, runGbatch, startSim, tempDir } from './lib/harness.mjs';
import { startMoto } from './lib/moto.mjs';

const MB = Number(flag('mb', '2048'));
const HEAP_MB = 256;

requireBuild();
const load = loadavg()[0];
const credentials = { accessKeyId: 'AKIABENCHGBATCH00001', secretAccessKey: 'bench-secret' };
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const moto = await startMoto();
const sim = await startSim([
  '--task-seconds',
  '0.5',
  '--video-bytes',
  String(MB * 1024 * 1024),
  '--api-key',
  'sk-bench=1000000',
]);
const dir = tempDir('s3-heap');
try {
  const client = new S3Client({ endpoint: moto.endpoint, forcePathStyle: true, region: 'us-east-1', credentials });
  await client.send(new CreateBucketCommand({ Bucket: 'heap' }));
  const manifest = join(dir, 'rows.jsonl');
  writeFileSync(
    manifest,
    `${JSON.stringify({ id: 'big', kind: 'video', model: 'video-fast', prompt: 'A long take', resolution: '480p', duration: 5 })}\n`,
  );
  const run = await runGbatch(
    ['run', manifest, '--state', join(dir, 'job.db'), '--out', 's3://heap/run', '--poll-interval', '0.2'],
    {
      nodeArgs: [`--max-old-space-size=${HEAP_MB}`],
      env: {
        GATEWAY_BASE_URL: sim.baseUrl,
        GATEWAY_API_KEY: 'sk-bench',
        AWS_ENDPOINT_URL: moto.endpoint,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_REGION: 'us-east-1',
      },
    },
  );
  const head = await client
    .send(new HeadObjectCommand({ Bucket: 'heap', Key: 'run/big.mp4' }))
    .catch((err) => ({ error: String(err) }));
  client.destroy();
  report({
    name: 's3-heap',
    video_mb: MB,
    heap_cap_mb: HEAP_MB,
    exit: run.code,
    stored_bytes: head.ContentLength ?? null,
    stored_sha256: head.Metadata?.sha256 ?? null,
    peak_rss_mb: run.maxRssKb === null ? null : Math.round(run.maxRssKb / 1024),
    wall_s: Number((run.wallMs / 1000).toFixed(1)),
    stderr_tail: run.code === 0 ? undefined : run.stderr.slice(-400),
    load_at_start: Number(load.toFixed(1)),
    machine: machine(),
    date: new Date().toISOString(),
  });
} finally {
  await sim.stop();
  moto.stop();
  removeDir(dir);
}
