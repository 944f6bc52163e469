// `gbatch serve`'s other clients while a large batch is checked and loaded: a 50,000-line batch is uploaded
// and created with one token while another token reads its own batch every 10 ms (GET /v1/batches/{id}), from
// the create until the large batch is in progress and its rows are loaded. Target: p99 < 100 ms (one event
// loop: a check or a load that never yields stalls every client). The large batch's own run is against a
// simulator with 1 s latency, so its sending adds little while it is measured.
// Usage: npm run build && node bench/serve-stall.mjs [--lines N]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flag, machine, removeDir, report, requireBuild, root, startSim, tempDir } from './lib/harness.mjs';

const TOKEN_A = 'bench-token-alice-0001';
const TOKEN_B = 'bench-token-bob-00002';

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function serveStall({ lines = 50_000 } = {}) {
  requireBuild();
  const dir = tempDir('serve-stall');
  const big = join(dir, 'big.jsonl');
  const line = (i) =>
    JSON.stringify({
      custom_id: `r${i}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'chat-small', messages: [{ role: 'user', content: `request number ${i}` }], max_tokens: 16 },
    });
  writeFileSync(big, Array.from({ length: lines }, (_, i) => line(i)).join('\n') + '\n');
  const small = join(dir, 'small.jsonl');
  writeFileSync(small, `${line(0)}\n`);
  const sim = await startSim(['--latency-ms', '1000', '--api-key', 'sk-bench=1000000']);
  const child = spawn(
    process.execPath,
    ['bin/gbatch.js', 'serve', '--port', '0', '--data', join(dir, 'data'), '--concurrency', '4'],
    {
      cwd: root,
      env: {
        ...process.env,
        GATEWAY_BASE_URL: sim.baseUrl,
        GATEWAY_API_KEY: 'sk-bench',
        GBATCH_SERVE_TOKENS: `${TOKEN_A},${TOKEN_B}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let url;
  let buffered = '';
  for await (const chunk of child.stdout) {
    buffered += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(buffered);
    if (match) {
      url = match[1];
      break;
    }
  }
  const as = (token) => ({ authorization: `Bearer ${token}` });
  const create = async (token, path) => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([await import('node:fs').then((fs) => fs.readFileSync(path))]), 'in.jsonl');
    const file = await (await fetch(`${url}/files`, { method: 'POST', headers: as(token), body: form })).json();
    return (
      await fetch(`${url}/batches`, {
        method: 'POST',
        headers: { ...as(token), 'content-type': 'application/json' },
        body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
      })
    ).json();
  };
  try {
    const mine = await create(TOKEN_B, small);
    const latencies = [];
    let loaded = false;
    const reader = (async () => {
      while (!loaded) {
        const started = performance.now();
        const res = await fetch(`${url}/batches/${mine.id}`, { headers: as(TOKEN_B) });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const started = performance.now();
    const large = await create(TOKEN_A, big);
    // Checked, then loaded into its job: done once its run sends its first request to the gateway.
    for (;;) {
      const batch = await (await fetch(`${url}/batches/${large.id}`, { headers: as(TOKEN_A) })).json();
      if (batch.status === 'failed') throw new Error(`the large batch failed: ${JSON.stringify(batch.errors)}`);
      const ledger = await sim.ledger();
      if (ledger.requests.some((r) => r.method === 'POST')) break;
      if (performance.now() - started > 300_000) throw new Error('the large batch sent nothing in 300 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    loaded = true;
    await reader;
    return {
      benchmark: 'serve-stall',
      machine: machine(),
      lines,
      reads: latencies.length,
      load_s: (performance.now() - started) / 1000,
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      max_ms: Math.max(...latencies),
      target_p99_ms: 100,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await sim.stop();
    removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await serveStall({ lines: Number(flag('lines', 50_000)) }));
}
