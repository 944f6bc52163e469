// One process hosting several runners of one job: each a `runJob` of the library (what `gbatch run` does),
// with its own journal connection pool and its own runner id, all in this process's event loop. Ends by
// printing one JSON line: each runner's exit code (its message when not 0, its first log lines) and this
// process's CPU.
// Usage (from a benchmark): node bench/lib/pg-runner-host.mjs '<{"runners":N,"job":…,"options":{…}}>'
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './harness.mjs';

const { runners, job, options } = JSON.parse(process.argv[2]);
const { runJob } = await import(pathToFileURL(join(root, 'dist/index.js')).href);
const ends = await Promise.all(
  Array.from({ length: runners }, () => {
    const logs = [];
    const onLog = (line) => logs.length < 20 && logs.push(line);
    return runJob({ job, options, onLog }).then(
      (result) => ({ code: result.exitCode, message: result.exitCode === 0 ? undefined : result.meaning, logs }),
      (err) => ({ code: null, message: String(err?.stack ?? err), logs }),
    );
  }),
);
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ends, cpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
