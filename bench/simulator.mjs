// Throughput of the simulator's chat endpoint on loopback: the simulator must never be the bottleneck
// (issue 2: >= 5,000 requests/s). Starts `gbatch sim --port 0` from dist/ in a child process, drives
// non-streaming chat completions through an undici Pool, prints one JSON line with the median rate.
// Usage: npm run build && node bench/simulator.mjs [--requests N] [--rounds N] [--connections N]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const TARGET = 5000;
const KEY = 'sk-sim-demo';

if (!existsSync(`${root}dist/bundle/main.js`)) {
  console.error('bench/simulator: dist/ is missing; run `npm run build` first');
  process.exit(2);
}

async function startChild() {
  const child = spawn(process.execPath, ['bin/gbatch.js', 'sim', '--port', '0', '--api-key', `${KEY}=1000000`], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffered = '';
  for await (const chunk of child.stdout) {
    buffered += chunk;
    const match = /listening on (http:\/\/[^\s]+)\/v1/.exec(buffered);
    if (match) return { child, origin: match[1] };
  }
  throw new Error('the simulator exited before printing its listening line');
}

const body = JSON.stringify({
  model: 'chat-small',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Write one sentence about batch processing on a quiet morning.' },
  ],
  max_tokens: 64,
  temperature: 0.7,
});
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function round(pool) {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next += 1;
      const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
      await res.body.text();
      if (res.statusCode !== 200) failures += 1;
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONNECTIONS * 2 }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (failures > 0) throw new Error(`${failures} requests did not answer 200`);
  return Math.round(REQUESTS / seconds);
}

const { child, origin } = await startChild();
const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
try {
  await round(pool); // warm-up: JIT and connections
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await round(pool));
  const sorted = [...runs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    JSON.stringify({
      benchmark: 'simulator',
      median_rps: median,
      runs,
      target: TARGET,
      requests_per_run: REQUESTS,
      connections: CONNECTIONS,
    }),
  );
  process.exitCode = median >= TARGET ? 0 : 1;
} finally {
  await pool.close();
  child.kill('SIGTERM');
  await once(child, 'exit');
}
