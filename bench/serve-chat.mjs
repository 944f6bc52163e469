// `gbatch serve` against `gbatch run` and the naive peer (issue 22): the same N chat rows against the
// simulator with 100 ms latency at --concurrency 200, in one process each round, alternated. serve is timed
// from the upload to the output file read back (the OpenAI SDK's path: upload, create, poll, download);
// run from start to exit; the naive peer as in chat-throughput. Medians.
// Usage: npm run build && node bench/serve-chat.mjs [--rows N] [--rounds N]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import {
  flag,
  machine,
  median,
  removeDir,
  report,
  requireBuild,
  root,
  runGbatch,
  startSim,
  tempDir,
} from './lib/harness.mjs';

const TOKEN = 'bench-token';

export async function serveChat({ rows = 10_000, rounds = 2, latencyMs = 100, concurrency = 200 } = {}) {
  requireBuild();
  const dir = tempDir('serve');
  const manifest = await chatJsonl(join(dir, 'chat.jsonl'), rows);
  // The same rows in the Batch API's form, as a client of serve sends them.
  const batchInput = join(dir, 'batch.jsonl');
  writeFileSync(
    batchInput,
    readFileSync(manifest, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { id, kind: _kind, ...body } = JSON.parse(line);
        return JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body });
      })
      .join('\n') + '\n',
  );
  const sim = await startSim(['--latency-ms', String(latencyMs), '--api-key', 'sk-bench=1000000']);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const times = { run: [], serve: [], naive: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const run = await runGbatch(
        [
          'run',
          manifest,
          '--state',
          join(dir, `r${round}.db`),
          '--out',
          join(dir, `out-${round}`),
          '--concurrency',
          String(concurrency),
          '--quiet',
          '--json',
        ],
        { env },
      );
      if (run.code !== 0) throw new Error(`gbatch run exited ${run.code}: ${run.stderr.slice(-500)}`);
      times.run.push(run.wallMs);
      times.serve.push(await timeServe(join(dir, `serve-${round}`), batchInput, env, concurrency, rows));
      const started = performance.now();
      const naive = spawn(process.execPath, [join(root, 'bench/lib/naive-chat.mjs'), manifest, String(concurrency)], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const code = await new Promise((resolve) => naive.once('exit', resolve));
      if (code !== 0) throw new Error(`the naive peer exited ${code}`);
      times.naive.push(performance.now() - started);
    }
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const run = median(times.run);
  const serve = median(times.serve);
  const naive = median(times.naive);
  return {
    benchmark: 'serve-chat',
    machine: machine(),
    rows,
    latency_ms: latencyMs,
    concurrency,
    rounds,
    ideal_s: (rows * latencyMs) / concurrency / 1000,
    serve_s: serve / 1000,
    run_s: run / 1000,
    naive_s: naive / 1000,
    serve_over_run: serve / run,
    serve_over_naive: serve / naive,
    times_s: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.map((ms) => ms / 1000)])),
  };
}

/** A server started (untimed), then the client's path timed: upload, create, poll each 100 ms, read the output. */
async function timeServe(data, input, env, concurrency, rows) {
  const child = spawn(
    process.execPath,
    ['bin/gbatch.js', 'serve', '--port', '0', '--data', data, '--concurrency', String(concurrency)],
    { cwd: root, env: { ...process.env, ...env, GBATCH_SERVE_TOKENS: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] },
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
  const headers = { authorization: `Bearer ${TOKEN}` };
  try {
    const started = performance.now();
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([readFileSync(input)]), 'batch.jsonl');
    const file = await (await fetch(`${url}/files`, { method: 'POST', headers, body: form })).json();
    const created = await (
      await fetch(`${url}/batches`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
      })
    ).json();
    let batch = created;
    while (!['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      batch = await (await fetch(`${url}/batches/${created.id}`, { headers })).json();
    }
    if (batch.status !== 'completed' || batch.request_counts.completed !== rows)
      throw new Error(`serve ended ${batch.status}: ${JSON.stringify(batch.request_counts ?? batch.errors)}`);
    const output = await (await fetch(`${url}/files/${batch.output_file_id}/content`, { headers })).text();
    if (output.split('\n').filter(Boolean).length !== rows) throw new Error('the output file misses lines');
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(await serveChat({ rows: Number(flag('rows', 10_000)), rounds: Number(flag('rounds', 2)) }));
}
