// `gbatch` as a user runs it: a child process of the built CLI (dist/, built by `npm test` or `npm run build`).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_THRESHOLD_ENV } from '../../src/ingest/scan-compact.js';
import { ROOT, type Workspace } from './workspace.js';

export const BIN = join(ROOT, 'bin', 'gbatch.js');
export const BUILT = existsSync(join(ROOT, 'dist', 'bundle', 'main.js'));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to a clean environment (no GATEWAY_* inherited from the test process). */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export interface RunningCli {
  child: ChildProcess;
  result: Promise<CliResult>;
  /** Resolves once stderr has printed a line matching `pattern`. */
  stderrMatching(pattern: RegExp): Promise<string>;
}

function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GATEWAY_') && value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

export function startCli(args: readonly string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const w of [...watchers]) {
      const line = stderr.split('\n').find((l) => w.pattern.test(l));
      if (line !== undefined) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    result,
    stderrMatching(pattern) {
      const line = stderr.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) return Promise.resolve(line);
      return new Promise<string>((resolve, reject) => {
        watchers.push({ pattern, resolve });
        void result.then((r) => reject(new Error(`gbatch exited (${r.code}) before printing ${pattern}: ${r.stderr}`)));
      });
    },
  };
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).result;
}

/** The `run` arguments of `manifest` on the workspace's journal and output folder, polling every 50 ms. */
export function workspaceRunArgs(ws: Workspace, manifest: string, extra: readonly string[] = []): string[] {
  return ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', ...extra];
}

/** The environment that points the CLI at a simulator with a key. */
export function gatewayEnv(baseUrl: string, apiKey: string): Record<string, string> {
  return { GATEWAY_BASE_URL: baseUrl, GATEWAY_API_KEY: apiKey };
}

/**
 * The environment that makes the CLI read manifests of `bytes` and more in its worker thread
 * (GBATCH_SCAN_WORKER_BYTES, an internal knob; the real threshold is WORKER_THRESHOLD_BYTES, 8 MiB):
 * the worker path with a manifest a fraction of that size.
 */
export function scanWorkerEnv(bytes: number): Record<string, string> {
  return { [WORKER_THRESHOLD_ENV]: String(bytes) };
}

/** Parses the one JSON object `--json` prints on stdout. */
export function stdoutJson<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `stdout is not one JSON object (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
}
