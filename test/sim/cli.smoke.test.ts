// `gbatch sim` as a user runs it: a child process from the built dist/, its one listening line, a real
// request, and a clean exit on SIGTERM. `npm test` builds dist/ first; without it the test is skipped.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(`${root}/dist/bundle/main.js`) && existsSync(`${root}/dist/sim/index.js`);
if (!built)
  console.warn('cli.smoke: dist/ is not built (run `npm run build` or `npm test`); skipping the CLI smoke test');

test.skipIf(!built)(
  'gbatch sim --port 0: one stdout line, serves /v1/models and a video file, exits 0 on SIGTERM',
  async () => {
    const child = spawn(
      process.execPath,
      ['bin/gbatch.js', 'sim', '--port', '0', '--api-key', 'sk-smoke=5', '--seed', '3', '--task-seconds', '0'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const exit = once(child, 'exit');
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
      });
      expect(line).toMatch(/^gbatch sim listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const baseUrl = line.slice('gbatch sim listening on '.length);

      const res = await fetch(`${baseUrl}/models`, { headers: { authorization: 'Bearer sk-smoke' } });
      expect(res.status).toBe(200);
      const list = (await res.json()) as { data: Array<{ id: string }> };
      expect(list.data.map((m) => m.id)).toContain('video-pro-2.5');

      // The bundled build finds the simulator's video asset from its own location (scripts/bundle.mjs).
      const auth = { authorization: 'Bearer sk-smoke', 'content-type': 'application/json' };
      const submitted = await fetch(`${baseUrl}/video/generations`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ model: 'video-fast', prompt: 'a kite' }),
      });
      expect(submitted.status).toBe(200);
      const { id } = (await submitted.json()) as { id: string };
      let status = '';
      for (let polls = 0; polls < 50 && status !== 'SUCCESS'; polls++) {
        const polled = (await (await fetch(`${baseUrl}/video/generations/${id}`, { headers: auth })).json()) as {
          data: { status: string };
        };
        status = polled.data.status;
      }
      expect(status).toBe('SUCCESS');
      const video = await fetch(`${baseUrl}/videos/${id}/content`, { headers: auth });
      expect(video.status).toBe(200);
      expect(Buffer.from(await video.arrayBuffer()).equals(readFileSync(`${root}/assets/sim-video.mp4`))).toBe(true);

      child.kill('SIGTERM');
      const [code] = await exit;
      expect(code).toBe(0);
      expect(stdout).toBe(`${line}\n`);
      expect(stderr).not.toContain('sk-smoke');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  },
);

test.skipIf(!built)('gbatch sim with a bad flag exits 2 with a message on stderr', async () => {
  const child = spawn(process.execPath, ['bin/gbatch.js', 'sim', '--error-rate', '2'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const [code] = await once(child, 'exit');
  expect(code).toBe(2);
  expect(stderr).toMatch(/--error-rate/);
});
