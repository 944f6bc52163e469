// Side by side: this checkout's gbatch and another checkout's (a built older commit), alternating, against one
// simulator, on the chat benchmark's 20,000 rows (100 ms latency, --concurrency 200). For a machine whose
// speed drifts within minutes, only such alternating runs compare two builds.
// Usage: npm run build && node bench/ab-chat.mjs <other-checkout-dir> [rounds=3] [rows=20000]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { median, removeDir, requireBuild, root, startSim, tempDir } from './lib/harness.mjs';

const [other, rounds = '3', rows = '20000'] = process.argv.slice(2);
if (!other) {
  console.error('usage: node bench/ab-chat.mjs <other-checkout-dir> [rounds] [rows]');
  process.exit(2);
}
requireBuild();
const dir = tempDir('ab-chat');
const manifest = await chatJsonl(join(dir, 'chat.jsonl'), Number(rows));
const sim = await startSim(['--latency-ms', '100', '--api-key', 'sk-bench=1000000']);
const env = { ...process.env, GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
const checkouts = { this: root, other };
const seconds = { this: [], other: [] };
try {
  for (let round = 0; round < Number(rounds); round++) {
    for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const started = performance.now();
      const args = [
        join(checkouts[name], 'bin/gbatch.js'),
        'run',
        manifest,
        '--state',
        join(dir, `${name}-${round}.db`),
        '--out',
        join(dir, `out-${name}-${round}`),
        '--concurrency',
        '200',
        '--quiet',
        '--json',
      ];
      const code = await new Promise((resolve) =>
        spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }).on('close', resolve),
      );
      if (code !== 0) throw new Error(`${name} exited ${code}`);
      seconds[name].push(Number(((performance.now() - started) / 1000).toFixed(2)));
    }
  }
  console.log(
    JSON.stringify({
      benchmark: 'ab-chat',
      rows: Number(rows),
      seconds,
      median_s: { this: median(seconds.this), other: median(seconds.other) },
    }),
  );
} finally {
  await sim.stop();
  removeDir(dir);
}
