// One process hosting several runners of one job: each a `runJob` of the library (what `gbatch run` does),
// with its own journal connection pool and its own runner id, all in this process's event loop. Ends by
// printing one JSON line: each runner's exit code (and its message when not 0) and this process's CPU.
// Usage (from a benchmark): node bench/lib/pg-runner-host.mjs '<{"runners":N,"job":…,"options":{…}}>'
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './harness.mjs';

const { runners, job, options } = JSON.parse(process.argv[2]);
const { runJob } = await import(pathToFileURL(join(root, 'dist/index.js')).href);
const ends = await Promise.all(
  Array.from({ length: runners }, () =>
    runJob({ job, options }).then(
      (result) => ({ code: result.exitCode, message: result.exitCode === 0 ? undefined : result.meaning }),
      (err) => ({ code: null, message: String(err?.stack ?? err) }),
    ),
  ),
);
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ends, cpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
