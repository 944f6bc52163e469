// moto_server (an S3-compatible server, Python, on the machine) on a free loopback port, for the S3 benchmarks.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { printed } from './harness.mjs';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

export async function startMoto() {
  const port = await freePort();
  const child = spawn('moto_server', ['-p', String(port), '-H', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await printed(child, /Running on/, 'moto_server');
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}
