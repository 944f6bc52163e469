// Shared pieces of the benchmarks: the simulator and gbatch as child processes, timing, peak RSS, medians.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const PEAK_RSS = join(root, 'bench/lib/peak-rss.cjs');

export function requireBuild() {
  if (!existsSync(join(root, 'dist/bundle/main.js'))) {
    console.error('bench: dist/ is missing; run `npm run build` first');
    process.exit(2);
  }
}

export function tempDir(name) {
  return mkdtempSync(join(tmpdir(), `gbatch-bench-${name}-`));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function machine() {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

/**
 * Resolves with the match once `child` prints `pattern` (on stdout or stderr); rejects, with what it printed, if it
 * exits first. `name` says which server in that error.
 */
export function printed(child, pattern, name) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d) => {
      seen += d;
      const match = pattern.exec(seen);
      if (match) resolve(match);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${seen}`)));
  });
}

/** Starts `gbatch sim` in its own process; resolves once it prints its listening line. */
export async function startSim(args = []) {
  const child = spawn(process.execPath, ['bin/gbatch.js', 'sim', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let buffered = '';
  for await (const chunk of child.stdout) {
    buffered += chunk;
    const match = /listening on (http:\/\/[^\s]+)\/v1/.exec(buffered);
    if (match) {
      const origin = match[1];
      return {
        origin,
        baseUrl: `${origin}/v1`,
        async ledger() {
          const res = await fetch(`${origin}/__sim/ledger`);
          return res.json();
        },
        async stop() {
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('exit', resolve));
        },
      };
    }
  }
  throw new Error(`the simulator exited before listening: ${stderr}`);
}

/**
 * The arguments after node's of `gbatch run` on `manifest` by `checkout`'s build (side-by-side benchmarks), its
 * journal and outputs in `dir` under `name`, then `extra`.
 */
export function checkoutRunArgs(checkout, manifest, dir, name, extra = []) {
  const run = ['run', manifest, '--state', join(dir, `${name}.db`), '--out', join(dir, `out-${name}`)];
  return [join(checkout, 'bin/gbatch.js'), ...run, ...extra];
}

/**
 * Runs `node bin/gbatch.js <args>` as a user would; returns exit code, wall time, peak RSS and output.
 * `onStart` receives the spawn instant (performance.now) for time-to-X measurements.
 */
export async function runGbatch(args, { env = {}, cwd = root, nodeArgs = [] } = {}) {
  const rssFile = join(tempDir('rss'), 'rss');
  const started = performance.now();
  const startedAtMs = Date.now();
  const child = spawn(process.execPath, ['--require', PEAK_RSS, ...nodeArgs, join(root, 'bin/gbatch.js'), ...args], {
    cwd,
    env: { ...process.env, ...env, BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise((resolve) => child.once('exit', (c) => resolve(c)));
  const wallMs = performance.now() - started;
  let maxRssKb = null;
  try {
    maxRssKb = Number(readFileSync(rssFile, 'utf8'));
  } catch {
    // killed before exit: no figure
  }
  removeDir(join(rssFile, '..'));
  return { code, wallMs, maxRssKb, stdout, stderr, startedAtMs };
}

export function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

export function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
