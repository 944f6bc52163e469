// S3-compatible servers on loopback for the object storage tests: moto_server (Python, on the machine;
// .ci/run installs it) started per test file on a free port, and buckets made through the AWS SDK.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** moto_server missing outside CI: its tests skip with one loud line (under CI=true they fail instead). */
export const MOTO_MISSING =
  process.env.CI !== 'true' &&
  !(process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'moto_server')));
if (MOTO_MISSING) console.warn("object storage tests SKIPPED: moto_server is not on PATH (pip install 'moto[server]')");

/** Credentials the test servers accept (moto takes any; these are not secrets). */
export const TEST_CREDENTIALS = { accessKeyId: 'AKIATESTGBATCH000001', secretAccessKey: 'test-secret-gbatch-s3-key' };

/** The environment that points gbatch (or the SDK) at `endpoint` with the test credentials. */
export function s3Env(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
}

export interface S3Server {
  endpoint: string;
  /** A client of the server, for the tests' own reads and checks. */
  client: S3Client;
  createBucket(name: string): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the child prints `pattern` (on either stream); rejects if it exits first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (data: Buffer): void => {
      seen += data.toString('utf8');
      if (pattern.test(seen)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`moto_server exited (${code}) before answering: ${seen.slice(-500)}`)),
    );
    child.once('error', reject);
  });
}

export function clientOf(endpoint: string, credentials = TEST_CREDENTIALS): S3Client {
  // The SDK's advice to leave Node 20 (gbatch supports it); its documented switch.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function startMoto(): Promise<S3Server> {
  const port = await freePort();
  const child = spawn('moto_server', ['-p', String(port), '-H', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  await printed(child, new RegExp(`Running on http://127\\.0\\.0\\.1:${port}`));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = clientOf(endpoint);
  return {
    endpoint,
    client,
    createBucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    close: async () => {
      client.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The credentials s3rver accepts (its built-in pair; it checks every request's signature against them). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** s3rver (npm, in this process) on a free loopback port, its objects in `directory`, with `buckets` made. */
export async function startS3rver(
  directory: string,
  buckets: string[],
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
