// The embedded gateway simulator: the whole API of gateway-api-spec.md on one loopback HTTP server,
// with accounts, billing, faults and a ledger. `startSimulator()` is what tests and `gbatch sim` use.

import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolution } from '../core/models.js';
import { AccountRegistry } from './accounts.js';
import type { SimContext } from './context.js';
import { HANDLERS } from './handlers/index.js';
import { Ledger } from './ledger.js';
import { defaultFaults, mergeFaults, resolveOptions, type ResolvedOptions } from './options.js';
import { PriceList } from './prices.js';
import { createRandom } from './random.js';
import { createSimServer } from './server.js';
import { readSimState, StateWriter, writeSimStateNow, type SimState } from './state-file.js';
import { TaskBook } from './task-book.js';
import type { FaultOptions, Simulator, SimulatorOptions } from './types.js';
import { paddedVideo, videoAsset } from './video-asset.js';

export type {
  AccountOptions,
  Clock,
  Endpoint,
  ErrorFlavor,
  FaultOptions,
  PollShape,
  Simulator,
  SimulatorOptions,
} from './types.js';
export type { ChargeKind, ChargeRecord, Ledger, RequestRecord, TaskRecord, TaskState } from './ledger.js';
export type { RateSnapshot } from './prices.js';
export { ENDPOINTS } from './types.js';
export { REFERENCE_VIDEO_SECONDS, QUOTA_PER_USD, reservationTokens, videoTokens } from './tokens.js';
export { countReferenceVideos } from './reference-video.js';
export { DEFAULT_API_KEY, DEFAULT_BALANCE_USD, DEFAULT_TASK_SECONDS, defaultFaults } from './options.js';

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSimulator(options?: SimulatorOptions): Promise<Simulator> {
  const resolved = resolveOptions(options);
  const saved = resolved.stateFile === undefined ? undefined : readSimState(resolved.stateFile);
  const video = paddedVideo(videoAsset(), resolved.videoBytes);
  const random = createRandom(resolved.seed, saved?.random);
  const accounts = new AccountRegistry(resolved.accounts);
  const ledger = new Ledger();
  const prices = new PriceList(resolved.groupRatio);
  const faults = { current: resolved.faults };
  const tasks = new TaskBook({
    ledger,
    prices,
    random,
    clock: resolved.clock,
    taskSeconds: resolved.taskSeconds,
    tokenNoise: resolved.tokenNoise,
    faults: () => faults.current,
  });
  let sequence = saved?.sequence ?? 0;
  if (saved) restoreState(saved, resolved.stateFile!, { accounts, ledger, tasks });
  const snapshot = (): SimState => ({
    version: 1,
    random: random.state(),
    sequence,
    balances: Object.fromEntries(accounts.all().map((a) => [a.name, a.balanceUsd])),
    tasks: tasks.saved(),
    ledger: ledger.saved(),
  });
  const writer = stateWriter(resolved, snapshot);
  ledger.attach({
    accounts,
    settleDue: () => tasks.settleDue(),
    taskRecords: () => tasks.records(),
    ...(writer ? { changed: () => writer.changed() } : {}),
  });
  const shutdown = new AbortController();
  // Every delayed request listens on it: thousands of listeners are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const ctx: SimContext = {
    closing: shutdown.signal,
    options: resolved,
    accounts,
    ledger,
    prices,
    tasks,
    random,
    clock: resolved.clock,
    video,
    faults: () => faults.current,
    updateFaults: (update) => {
      faults.current = mergeFaults(faults.current, update);
    },
    log: resolved.log,
    origin: '',
    nextId: (prefix) => `${prefix}sim${(++sequence).toString(36).padStart(8, '0')}`,
  };

  const server = createSimServer(ctx, HANDLERS);
  const port = await listen(server, resolved.port, resolved.host);
  ctx.origin = `http://${hostForUrl(resolved.host)}:${port}`;
  const restoredTasks = saved?.tasks.length ?? 0;
  return simulatorHandle(ctx, { server, port, faults, shutdown, writer, restoredTasks });
}

interface Running {
  server: Server;
  port: number;
  faults: { current: FaultOptions };
  shutdown: AbortController;
  writer: StateWriter | undefined;
  restoredTasks: number;
}

/** What a test or `gbatch sim` holds of a running simulator. */
function simulatorHandle(ctx: SimContext, running: Running): Simulator {
  const { origin, options: resolved, ledger, prices, accounts, tasks } = ctx;
  const { server, port, faults, shutdown, writer } = running;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    port,
    ledger,
    get faults(): FaultOptions {
      return faults.current;
    },
    set faults(next: FaultOptions) {
      faults.current = mergeFaults(defaultFaults(), next);
    },
    setPrice(model: string, resolution: Resolution, rate: { ref: number; noref: number }): void {
      prices.setVideoPrice(model, resolution, rate);
    },
    setGroupRatio(ratio: number): void {
      if (!(Number.isFinite(ratio) && ratio > 0))
        throw new RangeError(`setGroupRatio: expected a number above 0, got ${ratio}`);
      prices.groupRatio = ratio;
    },
    state:
      resolved.stateFile === undefined ? undefined : { file: resolved.stateFile, restoredTasks: running.restoredTasks },
    account(key: string): { name: string; balanceUsd: number } {
      const account = accounts.forKey(key);
      if (!account) throw new Error('account(): no account has this key');
      tasks.settleDue();
      return { name: account.name, balanceUsd: account.balanceUsd };
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => writer?.flush());
      return closing;
    },
  };
}

/** The port the server listens on, once it does. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** With --state: the file written now, then kept up to date as the simulator changes. */
function stateWriter(resolved: ResolvedOptions, snapshot: () => SimState): StateWriter | undefined {
  const file = resolved.stateFile;
  if (file === undefined) return undefined;
  writeSimStateNow(file, snapshot());
  return new StateWriter(file, snapshot, (err) => resolved.log(`cannot write the state file ${file}: ${err.message}`));
}

/** Puts a --state file's tasks, ledger and balances back; an account it names that no --api-key gives is refused. */
function restoreState(
  saved: SimState,
  file: string,
  into: { accounts: AccountRegistry; ledger: Ledger; tasks: TaskBook },
): void {
  const named = new Set([...Object.keys(saved.balances), ...saved.tasks.map((t) => t.account)]);
  for (const name of named) {
    if (!into.accounts.named(name))
      throw new RangeError(
        `${file}: the state holds ${name}, but only ${into.accounts.all().length} account(s) are given: pass the same --api-key list as before`,
      );
  }
  for (const [name, balance] of Object.entries(saved.balances)) into.accounts.named(name)!.balanceUsd = balance;
  into.ledger.restore(saved.ledger);
  into.tasks.restore(saved.tasks, (name) => into.accounts.named(name)!);
}
