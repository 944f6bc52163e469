// The gateway client's shape: its options, what a submission can come to, and its methods.
import type { Clock } from '../core/clock.js';
import type { BackoffPolicy, SubmitKind } from '../core/retry.js';
import type { GatewayHttpError, GatewayTransportError } from './errors.js';
import type { BodyTarget } from '../io/output-store.js';
import type { TaskStatus } from './task-status.js';

export interface GatewayClientOptions {
  /** SDK-style base, ending with /v1 (a bare origin gets /v1 appended). */
  baseUrl: string;
  apiKey: string;
  /** undici Pool connections (default 64). */
  connections?: number;
  /** Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 300_000 for POST (models can be slow), 30_000 for GET. Given, it applies to both. */
  headersTimeoutMs?: number;
  /** Default 300_000: the longest silence allowed between two body chunks. */
  bodyTimeoutMs?: number;
  /** Default systemClock; every wait (pause, backoff) goes through it. */
  clock?: Clock;
  /** Jitter source; default Math.random. */
  random?: () => number;
  backoff?: BackoffPolicy;
  /** The most bytes of an answer (chat/responses body, poll, error) read into memory. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Told of every exchange with the gateway's own origin: answered (any status) or refused before sending. */
  connectivity?: ConnectivityListener;
  /** Told of every request that left: its lane and the status answered (null: no answer, a transport failure). */
  onExchange?: (exchange: GatewayExchange) => void;
}

/** One request to the gateway (or a result_url host), as the run's metrics count it. */
export interface GatewayExchange {
  lane: 'submit' | 'poll' | 'download' | 'other';
  status: number | null;
}

export interface ConnectivityListener {
  answered(): void;
  /** The connection failed before anything was sent (refused, unknown host, unreachable, connect timeout). */
  refused(error: GatewayTransportError): void;
}

export type SendOutcome =
  | { kind: 'accepted'; taskId: string; body: unknown }
  | { kind: 'completed'; status: number; body: unknown; requestId?: string }
  | { kind: 'rejected'; error: GatewayHttpError }
  | { kind: 'insufficient_balance'; error: GatewayHttpError }
  // A GatewayTransportError here is a connect failure: nothing left the process, so sending again is safe.
  | { kind: 'retry'; error: GatewayHttpError | GatewayTransportError; delayMs: number }
  | { kind: 'ambiguous'; error: Error }
  // A chat/responses answer over maxResponseBytes: the gateway answered (and bills it), but it is not read.
  | { kind: 'oversize'; status: number; limit: number };

export interface DownloadOptions {
  resultUrl?: string;
  signal?: AbortSignal;
  /** Attempts at the content endpoint (and then at result_url) before giving up on it. Default 3. */
  contentAttempts?: number;
  /** Called once the whole body has arrived and checked out; the file's fsync and rename follow. */
  onReceived?: () => void;
}

export interface SendOptions {
  /** Cuts the request anywhere, on the wire too. */
  signal?: AbortSignal;
  /** Once aborted, stops the request if it has not left yet (an account pause, a connection). */
  unsent?: AbortSignal;
  /** Called when the request starts to leave on a connected socket (--rpm counts from then). */
  onWire?: () => void;
}

export interface GatewayClient {
  readonly origin: string;
  listModels(signal?: AbortSignal): Promise<string[]>;
  send(kind: SubmitKind, body: unknown, attempt: number, options?: SendOptions): Promise<SendOutcome>;
  getTask(taskId: string, signal?: AbortSignal): Promise<TaskStatus>;
  /** Streams the video to `dest`: a file path, or another target (an object on S3-compatible storage). */
  download(
    taskId: string,
    dest: string | BodyTarget,
    options?: DownloadOptions,
  ): Promise<{ bytes: number; sha256: string; source: 'content' | 'result_url' }>;
  pausedUntil(): number;
  /** Holds the account's requests for at least `ms` from now (another runner of the job saw a 429). */
  pauseFor(ms: number): void;
  stats(): { requests: number; retries: number; rateLimited: number };
  close(): Promise<void>;
}
