// Defaults and checks of the simulator's options; a bad value fails startSimulator with a clear message.

import { RESOLUTIONS } from '../core/models.js';
import {
  ENDPOINTS,
  type AccountOptions,
  type Clock,
  type FaultOptions,
  type PollShape,
  type SimulatorOptions,
} from './types.js';

export const DEFAULT_API_KEY = 'sk-sim-demo';
export const DEFAULT_BALANCE_USD = 100;
export const DEFAULT_TASK_SECONDS = 8;

export function defaultFaults(): FaultOptions {
  return {
    latencyMs: 0,
    latencyJitterMs: 0,
    errorRate: 0,
    errorRates: {},
    errorFlavor: 'envelope',
    acceptThenDropRate: 0,
    truncateDownloadRate: 0,
    failRate: 0,
    finalResolutionRate: 0,
  };
}

export interface ResolvedOptions {
  port: number;
  host: string;
  accounts: AccountOptions[];
  taskSeconds: number;
  seed: number;
  shape: PollShape;
  groupRatio: number;
  tokenNoise: number;
  videoBytes: number | undefined;
  clock: Clock;
  faults: FaultOptions;
  admin: boolean;
  stateFile: string | undefined;
  log: (line: string) => void;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(`startSimulator: ${message}`);
}

function isRate(n: unknown): boolean {
  return typeof n === 'number' && n >= 0 && n <= 1;
}

/** Fills defaults and rejects impossible values (never echoing an API key). */
export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const accounts = options.accounts ?? [{ key: DEFAULT_API_KEY, balanceUsd: DEFAULT_BALANCE_USD }];
  check(accounts.length > 0, 'expected at least one account');
  const keys = new Set<string>();
  accounts.forEach((account, i) => {
    check(typeof account.key === 'string' && account.key.length > 0, `account ${i + 1}: expected a non-empty key`);
    check(!keys.has(account.key), `account ${i + 1}: its key is the same as an earlier account's`);
    keys.add(account.key);
    check(
      Number.isFinite(account.balanceUsd),
      `account ${i + 1}: expected balanceUsd to be a number, got ${account.balanceUsd}`,
    );
    const limit = account.rateLimitPerMinute;
    check(
      limit === undefined || (Number.isInteger(limit) && limit >= 1),
      `account ${i + 1}: expected rateLimitPerMinute to be an integer from 1 and up, got ${limit}`,
    );
  });
  const resolved: ResolvedOptions = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    accounts,
    taskSeconds: options.taskSeconds ?? DEFAULT_TASK_SECONDS,
    seed: options.seed ?? 1,
    shape: options.shape ?? 'a',
    groupRatio: options.groupRatio ?? 1,
    tokenNoise: options.tokenNoise ?? 0,
    videoBytes: options.videoBytes,
    clock: options.clock ?? { now: () => Date.now() },
    faults: mergeFaults(defaultFaults(), options.faults ?? {}),
    admin: options.admin ?? false,
    stateFile: options.stateFile,
    log: options.log ?? (() => {}),
  };
  check(
    Number.isInteger(resolved.port) && resolved.port >= 0 && resolved.port <= 65535,
    `expected port to be an integer from 0 to 65535, got ${resolved.port}`,
  );
  check(
    Number.isFinite(resolved.taskSeconds) && resolved.taskSeconds >= 0,
    `expected taskSeconds to be a number from 0 and up, got ${resolved.taskSeconds}`,
  );
  check(Number.isFinite(resolved.seed), `expected seed to be a number, got ${resolved.seed}`);
  check(
    resolved.shape === 'a' || resolved.shape === 'b',
    `expected shape to be 'a' or 'b', got ${String(resolved.shape)}`,
  );
  check(
    Number.isFinite(resolved.groupRatio) && resolved.groupRatio > 0,
    `expected groupRatio to be a number above 0, got ${resolved.groupRatio}`,
  );
  check(isRate(resolved.tokenNoise), `expected tokenNoise to be a number from 0 to 1, got ${resolved.tokenNoise}`);
  return resolved;
}

/** Applies a partial fault update onto `target` after checking every field; returns target. */
export function mergeFaults(target: FaultOptions, update: Partial<FaultOptions>): FaultOptions {
  const next: FaultOptions = {
    ...target,
    ...update,
    errorRates: { ...target.errorRates, ...(update.errorRates ?? {}) },
  };
  validateFaults(next);
  return Object.assign(target, next);
}

export function validateFaults(faults: FaultOptions): void {
  const ms = (n: number): boolean => Number.isFinite(n) && n >= 0;
  check(ms(faults.latencyMs), `expected faults.latencyMs to be a number from 0 and up, got ${faults.latencyMs}`);
  check(
    ms(faults.latencyJitterMs),
    `expected faults.latencyJitterMs to be a number from 0 and up, got ${faults.latencyJitterMs}`,
  );
  for (const name of [
    'errorRate',
    'acceptThenDropRate',
    'truncateDownloadRate',
    'failRate',
    'finalResolutionRate',
  ] as const) {
    check(isRate(faults[name]), `expected faults.${name} to be a number from 0 to 1, got ${faults[name]}`);
  }
  for (const [endpoint, rate] of Object.entries(faults.errorRates)) {
    check((ENDPOINTS as readonly string[]).includes(endpoint), `unknown endpoint in faults.errorRates: ${endpoint}`);
    check(
      rate === undefined || isRate(rate),
      `expected faults.errorRates.${endpoint} to be a number from 0 to 1, got ${rate}`,
    );
  }
  check(
    ['envelope', 'intermediary', 'mixed'].includes(faults.errorFlavor),
    `expected faults.errorFlavor to be envelope, intermediary or mixed, got ${String(faults.errorFlavor)}`,
  );
  check(
    faults.finalResolution === undefined || (RESOLUTIONS as readonly string[]).includes(faults.finalResolution),
    `expected faults.finalResolution to be one of ${RESOLUTIONS.join(', ')}, got ${String(faults.finalResolution)}`,
  );
}
