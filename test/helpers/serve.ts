// `gbatch serve` as a user runs it (a child process of the built CLI) in front of the simulator, and the
// official `openai` SDK as its client.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { onTestFinished } from 'vitest';
import { BIN } from './cli.js';
import { checkedFetch } from './openai-contract.js';
import { ROOT, type Workspace } from './workspace.js';
import type { Simulator } from '../../src/sim/index.js';
import { KEY, startSim } from './sim.js';

export const TOKEN_A = 'tok-serve-alice-3f9c';
export const TOKEN_B = 'tok-serve-bob-81d2';

export interface ServeChild {
  child: ChildProcess;
  /** http://127.0.0.1:PORT/v1 */
  url: string;
  stderr(): string;
  /** Resolves once stderr has printed a line matching `pattern` (at or after `from` characters). */
  stderrMatching(pattern: RegExp, from?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface ServeOptions {
  data: string;
  gateway: string;
  args?: string[];
  env?: Record<string, string | undefined>;
}

/** Starts `gbatch serve --port 0` and resolves once it printed its URL; stopped (SIGTERM) when the test ends. */
export async function startServe(options: ServeOptions): Promise<ServeChild> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('GATEWAY_') && !name.startsWith('GBATCH_') && value !== undefined) env[name] = value;
  Object.assign(env, {
    GATEWAY_BASE_URL: options.gateway,
    GATEWAY_API_KEY: KEY,
    GBATCH_SERVE_TOKENS: `${TOKEN_A},${TOKEN_B}`,
    ...options.env,
  });
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data', options.data, '--poll-interval', '0.05', ...(options.args ?? [])],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  const watchers: Array<{ pattern: RegExp; from: number; resolve: (line: string) => void }> = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const find = (pattern: RegExp, from: number): string | undefined =>
    stderr
      .slice(from)
      .split('\n')
      .find((l) => pattern.test(l));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const w of [...watchers]) {
      const line = find(w.pattern, w.from);
      if (line !== undefined) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const match = /gbatch serve listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((r) => reject(new Error(`gbatch serve exited (${r.code}) before listening: ${stderr}`)));
  });
  const server: ServeChild = {
    child,
    url,
    stderr: () => stderr,
    stderrMatching(pattern, from = 0) {
      const line = find(pattern, from);
      if (line !== undefined) return Promise.resolve(line);
      return new Promise<string>((resolve, reject) => {
        watchers.push({ pattern, from, resolve });
        void exited.then((r) =>
          reject(new Error(`gbatch serve exited (${r.code}) before printing ${pattern}: ${stderr}`)),
        );
      });
    },
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  onTestFinished(() => server.stop());
  return server;
}

export function client(server: Pick<ServeChild, 'url'>, token = TOKEN_A): OpenAI {
  return new OpenAI({ baseURL: server.url, apiKey: token, maxRetries: 0, fetch: checkedFetch() });
}

/** A Batch API input line for a chat request. */
export function chatLine(id: string, prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    custom_id: id,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'chat-small', messages: [{ role: 'user', content: prompt }], max_tokens: 16, ...extra },
  };
}

/** A Batch API input line for a video request. */
export function videoLine(id: string, prompt: string): Record<string, unknown> {
  return {
    custom_id: id,
    method: 'POST',
    url: '/v1/video/generations',
    body: { model: 'video-mini', prompt, resolution: '480p', duration: 2 },
  };
}

export function writeLines(file: string, lines: ReadonlyArray<unknown>): string {
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

/** Resolves once the server logged the batch's final status; returns it. */
export async function batchEnd(server: ServeChild, batchId: string): Promise<string> {
  const line = await server.stderrMatching(new RegExp(`${batchId}: (completed|expired|cancelled):`));
  return /: (completed|expired|cancelled):/.exec(line)![1]!;
}

/** The lines of a JSONL text, parsed. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * A simulator clock that holds every request at its latency until released (after answering the first
 * `passFirst` at once): `arrived(n)` resolves once n requests reached it, `release()` lets them (and all later
 * ones) through.
 */
export function heldGateway(passFirst = 0): {
  clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> };
  arrived(n: number): Promise<void>;
  /** Requests that reached the gateway so far (answered or not). */
  count(): number;
  release(): void;
} {
  let waiting = 0;
  let open = false;
  let opened!: () => void;
  const gate = new Promise<void>((resolve) => (opened = resolve));
  const watchers: Array<{ n: number; resolve: () => void }> = [];
  return {
    clock: {
      now: () => Date.now(),
      sleep: (_ms, signal) => {
        waiting++;
        for (const w of watchers.filter((w) => waiting >= w.n)) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve();
        }
        if (open || waiting <= passFirst) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          void gate.then(resolve);
          signal.addEventListener('abort', () => reject(new Error('closing')), { once: true });
        });
      },
    },
    count: () => waiting,
    arrived: (n) => (waiting >= n ? Promise.resolve() : new Promise((resolve) => watchers.push({ n, resolve }))),
    release: () => {
      open = true;
      opened();
    },
  };
}

/** Uploads `lines` and creates a batch of them. */
export async function submitBatch(
  openai: OpenAI,
  file: string,
  lines: ReadonlyArray<unknown>,
  options: {
    endpoint?: '/v1/chat/completions' | '/v1/video/generations';
    window?: string;
    metadata?: Record<string, string>;
  } = {},
): Promise<OpenAI.Batch> {
  const { createReadStream } = await import('node:fs');
  writeLines(file, lines);
  const uploaded = await openai.files.create({ file: createReadStream(file), purpose: 'batch' });
  return openai.batches.create({
    input_file_id: uploaded.id,
    // The SDK's type lists OpenAI's endpoints; the gateway's video endpoint goes through as it is.
    endpoint: (options.endpoint ?? '/v1/chat/completions') as '/v1/chat/completions',
    completion_window: (options.window ?? '24h') as '24h',
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
}

/** The custom ids of a final batch's output and error files. */
export async function filesOf(
  openai: OpenAI,
  batch: OpenAI.Batch,
): Promise<{ output: Array<Record<string, unknown>>; errors: Array<Record<string, unknown>> }> {
  const read = async (id: string | null | undefined) =>
    id ? jsonLines(await (await openai.files.content(id)).text()) : [];
  return { output: await read(batch.output_file_id), errors: await read(batch.error_file_id) };
}

/**
 * A batch of chat rows (`<prompt> <id>`) on a server at `--concurrency 2` in front of a simulator that holds
 * every answer: returned once its first two requests are on the wire (answered at `held.release()`).
 */
export async function heldChatBatch(
  ws: Workspace,
  ids: readonly string[],
  prompt: string,
  extra: { args?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<{
  held: ReturnType<typeof heldGateway>;
  sim: Simulator;
  options: ServeOptions;
  server: ServeChild;
  created: OpenAI.Batch;
}> {
  const held = heldGateway();
  const sim = await startSim({ clock: held.clock, faults: { latencyMs: 1 } });
  const options: ServeOptions = {
    data: ws.path('data'),
    gateway: sim.baseUrl,
    args: ['--concurrency', '2', ...(extra.args ?? [])],
    ...(extra.env ? { env: extra.env } : {}),
  };
  const server = await startServe(options);
  const created = await submitBatch(
    client(server),
    ws.path('in.jsonl'),
    ids.map((id) => chatLine(id, `${prompt} ${id}`)),
  );
  await held.arrived(2);
  return { held, sim, options, server, created };
}

/** SIGKILLs the server and starts another on the same options. */
export async function restartAfterSigkill(server: ServeChild, options: ServeOptions): Promise<ServeChild> {
  server.child.kill('SIGKILL');
  await server.exited;
  return startServe(options);
}
