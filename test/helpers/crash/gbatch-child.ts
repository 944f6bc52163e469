// `gbatch` as a real child process (node bin/gbatch.js, i.e. the built dist/), with the gateway in env.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/gbatch.js', import.meta.url));
const DIST_MAIN = fileURLToPath(new URL('../../../dist/bundle/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(DIST_MAIN)) throw new Error('dist/ is missing: build it first with `npm run build` (npm test does)');
}

export interface Gateway {
  baseUrl: string;
  apiKey: string;
}

export interface Ended {
  /** null when the process was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface GbatchChild {
  process: ChildProcess;
  startedAt: number;
  ended: Promise<Ended>;
  /** SIGKILL now (synchronous); a no-op once the process has ended. */
  kill(): boolean;
  readonly running: boolean;
}

export function startGbatch(
  args: readonly string[],
  gateway: Gateway,
  cwd = REPO,
  env: NodeJS.ProcessEnv = {},
): GbatchChild {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env, GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_API_KEY: gateway.apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let running = true;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const ended = new Promise<Ended>((resolve, reject) => {
    child.once('error', reject);
    // 'close' (not 'exit'): the output pipes are drained too.
    child.once('close', (code, signal) => {
      running = false;
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.once('exit', () => {
    running = false;
  });
  return {
    process: child,
    startedAt: Date.now(),
    ended,
    kill: () => running && child.kill('SIGKILL'),
    get running() {
      return running;
    },
  };
}

/** Runs `line` in a shell as an operator pastes it, `gbatch` being this checkout's built CLI; to its end. */
export function runPasted(line: string, env: NodeJS.ProcessEnv): Promise<Ended> {
  const script = `gbatch() { "${process.execPath}" "${BIN}" "$@"; }\n${line}`;
  const child = spawn('sh', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a command to its end. */
export function gbatch(args: readonly string[], gateway: Gateway, cwd = REPO): Promise<Ended> {
  return startGbatch(args, gateway, cwd).ended;
}

export function runArgs(jobFile: string, dir: string, extra: readonly string[] = []): string[] {
  return [
    'run',
    jobFile,
    '--state',
    `${dir}/j.db`,
    '--out',
    `${dir}/out`,
    '--poll-interval',
    '0.05',
    '--concurrency',
    '4',
    '--quiet',
    ...extra,
  ];
}

/** What a failed expectation should show: how the command ended and what it said. */
export function describeEnd(what: string, ended: Ended): string {
  return `${what}: exit ${ended.code ?? ended.signal}\n--- stdout ---\n${ended.stdout}\n--- stderr ---\n${ended.stderr}`;
}
