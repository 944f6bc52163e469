// s3rver (the npm S3-compatible server) in a child process on a free loopback port, its objects in a fresh
// temporary folder, for the S3 benchmarks. A child of its own, so the server's work does not share the
// benchmark's thread with the client being timed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printed } from './harness.mjs';

const SERVER = `
const { default: S3rver } = await import('s3rver');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[1] });
const { port } = await server.run();
console.log('listening ' + port);
`;

/** s3rver's built-in credential pair: it checks each request's signature against it. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3rver(root) {
  const directory = mkdtempSync(join(tmpdir(), 'gbatch-s3rver-'));
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER, directory], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, port] = await printed(child, /listening (\d+)/, 's3rver');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
