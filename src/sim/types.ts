// The simulator's public types: options, mutable faults and the in-process handle.

import type { Resolution } from '../core/models.js';
import type { AccountOptions } from './accounts.js';
import type { Ledger } from './ledger.js';

/** The six endpoints of spec section 4, as fault options name them. */
export type Endpoint = 'models' | 'chat' | 'responses' | 'submit' | 'poll' | 'content';
export const ENDPOINTS: readonly Endpoint[] = ['models', 'chat', 'responses', 'submit', 'poll', 'content'];

/**
 * `envelope`: 500/502/503 with the gateway's JSON envelope, nothing kept.
 * `intermediary`: 504 or 502 with an HTML page; the request was processed first (a video task exists).
 * `mixed`: either, half and half.
 */
export type ErrorFlavor = 'envelope' | 'intermediary' | 'mixed';

export interface FaultOptions {
  /** Added before every /v1 request is handled. */
  latencyMs: number;
  /** Plus a uniform random share of this. */
  latencyJitterMs: number;
  /** Fraction of requests to every endpoint answered with an injected 5xx. */
  errorRate: number;
  /** Per-endpoint overrides of errorRate. */
  errorRates: Partial<Record<Endpoint, number>>;
  errorFlavor: ErrorFlavor;
  /** Chat, responses and video submit: do the work (charge / create the task), then destroy the socket. */
  acceptThenDropRate: number;
  /** Content downloads that send the full Content-Length but close after half the bytes. */
  truncateDownloadRate: number;
  /** Fraction of video tasks that end in FAILURE (refunded). */
  failRate: number;
  /** Every task's output comes out at this resolution when the model's tier supports it. */
  finalResolution?: Resolution;
  /** Fraction of tasks whose output comes out at another supported resolution of the tier. */
  finalResolutionRate: number;
}

export type { AccountOptions };

export interface Clock {
  now(): number;
  /** Waits out a request's latency; default a real timer. Cut short (rejecting) when `signal` aborts. */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

export type PollShape = 'a' | 'b';

export interface SimulatorOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default [{ key: 'sk-sim-demo', balanceUsd: 100 }]. */
  accounts?: AccountOptions[];
  /** Seconds from submission to SUCCESS/FAILURE. Default 8. */
  taskSeconds?: number;
  /** Seed of every random choice. Default 1. */
  seed?: number;
  /** Polling response shape (spec 2.11). Default 'a'. */
  shape?: PollShape;
  /** Default 1. */
  groupRatio?: number;
  /** Final tokens are the formula's times (1 - tokenNoise * u), u uniform in [0, 1). Default 0. */
  tokenNoise?: number;
  /** Pads the served MP4 to this many bytes with a `free` box. Default: the asset's size. */
  videoBytes?: number;
  /** Milliseconds; default Date.now. Task progress is derived from it whenever a task is read. */
  clock?: Clock;
  faults?: Partial<FaultOptions>;
  /** Serve GET and POST /__sim/faults (loopback only, with one of the accounts' keys). Default false. */
  admin?: boolean;
  /**
   * Keep the tasks, ledger, balances and random sequence in this file: restored at start when it exists,
   * written after every change. Default: none (a restart starts afresh).
   */
  stateFile?: string;
  /** Lines for the operator: an admin change, a state file that cannot be written. Default: none. */
  log?: (line: string) => void;
}

export interface Simulator {
  /** 'http://127.0.0.1:<port>/v1' */
  baseUrl: string;
  /** 'http://127.0.0.1:<port>' */
  origin: string;
  port: number;
  ledger: Ledger;
  /** Mutable: a change applies to the next request. */
  faults: FaultOptions;
  setPrice(model: string, resolution: Resolution, rate: { ref: number; noref: number }): void;
  setGroupRatio(ratio: number): void;
  /** The --state file, when one is kept: tasks restored from it at start (0 for a new file). */
  state: { file: string; restoredTasks: number } | undefined;
  /** The account of a key, with its ledger name. Throws for an unknown key. */
  account(key: string): { name: string; balanceUsd: number };
  close(): Promise<void>;
}
