// What a run looks like at one instant, as pure JSON-ready data: the live view, the plain lines and
// `--progress json` are all drawn from it. Field names are snake_case and versioned: they are part of
// the NDJSON contract (docs/reference.md, "Progress").
import type { ItemState } from './states.js';

export const SNAPSHOT_VERSION = 1;

export type RunPhase = 'submitting' | 'waiting' | 'downloading' | 'settling' | 'stopping' | 'done';

export interface ErrorGroup {
  /** What went wrong, as a short stable key: outcome, HTTP status and code (`retried 429 rate_limit_exceeded`). */
  cause: string;
  count: number;
  /** The latest message of the group: printable, capped. */
  last_message: string;
  last_at: number;
}

export interface KindMoney {
  estimate_usd: number;
  settled_estimate_usd: number;
  settled_actual_usd: number;
}

export interface RunSnapshot {
  type: 'snapshot';
  version: typeof SNAPSHOT_VERSION;
  job: string;
  phase: RunPhase;
  /** Epoch ms. */
  started_at: number;
  now: number;
  /** Rows of the job, every state. */
  total: number;
  counts: Record<ItemState, number>;
  lanes: {
    /**
     * Rows waiting to be sent (`pending`), requests on the wire (`submitting`), answers this run, retries
     * this run, and whether the lane waits for budget headroom (reservations in flight must settle first).
     */
    submit: { queued: number; in_flight: number; done: number; retries: number; waiting_for_budget: boolean };
    /** Video tasks in flight upstream (`submitted` + `running`) and polls made this run. */
    poll: { tasks: number; polls: number };
    /** Downloads transferring, waiting (or backing off), stored this run, given up this run. */
    download: { in_flight: number; queued: number; done: number; failed: number };
  };
  /** What this run finished over the last `window_s` seconds (up to 5 minutes). */
  recent: { window_s: number; finished: number; sent: number };
  /**
   * Video rows still to send (pending or submitting); tasks in flight, their ages, and how long finished ones took from
   * acceptance to success.
   */
  tasks: {
    to_send: number;
    in_flight: number;
    youngest_age_s: number | null;
    oldest_age_s: number | null;
    durations: { count: number; p50_s: number | null; p90_s: number | null; max_s: number | null };
  };
  money: {
    /** Settled and reserved money as the budget sees it. */
    actual_usd: number;
    reserved_usd: number;
    budget_usd: number | null;
    /**
     * Per kind of work (chat and responses as `text`, `video`): the estimate of all rows, of rows settled, and what
     * those cost.
     */
    by_kind: { text: KindMoney; video: KindMoney } | null;
  };
  /** Epoch ms until which a 429 pauses the account's requests; null when not paused. */
  paused_until: number | null;
  /** Recent errors grouped by cause, most recent first (at most 8). */
  errors: ErrorGroup[];
}

/** Rows with their outcome: terminal (cancelled too), or answered (`succeeded`: the file is being written). */
export function finishedRows(counts: Record<ItemState, number>): number {
  return (
    counts.downloaded + counts.succeeded + counts.failed + counts.rejected + counts.invalid + (counts.cancelled ?? 0)
  );
}

/** Rows whose request or task is under way. */
export function inFlightRows(counts: Record<ItemState, number>): number {
  return counts.submitting + counts.submitted + counts.running;
}

/** Where the run is, from its counts and lanes (pure). */
export function phaseOf(input: {
  counts: Record<ItemState, number>;
  downloadsOpen: number;
  submitStopped: boolean;
  stopping: boolean;
  final: boolean;
}): RunPhase {
  const { counts } = input;
  if (input.final) return 'done';
  if (input.stopping) return 'stopping';
  if (!input.submitStopped && counts.pending + counts.submitting > 0) return 'submitting';
  if (counts.submitting > 0) return 'submitting';
  if (counts.submitted + counts.running > 0) return 'waiting';
  if (input.downloadsOpen > 0) return 'downloading';
  return 'settling';
}

/** The q-quantile (0..1) of sorted values, nearest rank; null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
