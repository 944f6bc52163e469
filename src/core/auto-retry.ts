// Pure: which rows a run sends again by itself (the retry policy, --retry-failed, and the opt-in
// --resubmit-uncertain-text), and how long it waits first. No I/O; the clock's time comes in as an argument.
// --retry-failed N is a row's allowance in its whole life: N automatic sends, whichever run, night or server
// sends them, counted in the journal (the row's `autoRetries`); an operator's `gbatch retry` starts a new one.
import type { ItemKind, ItemState } from './states.js';

/**
 * Refusals that say "not now" rather than "not this request": 408 (the server gave up waiting for the
 * request: it kept nothing) and 425 (too early to process it). Every other 4xx is a definite refusal that
 * would be refused again, and is left for the operator's `gbatch retry --rejected`.
 */
export const TRANSIENT_REJECTIONS: readonly number[] = [408, 425];

/** --retry-failed's default: refunded video failures and transient text refusals are sent at most twice more. */
export const DEFAULT_RETRY_FAILED = 2;

export interface AutoRetryPolicy {
  /**
   * Further attempts per row in its life (since it was ingested or an operator's `retry`), for a refunded video
   * failure or a transient text refusal (0: none).
   */
  retryFailed: number;
  /** Opt-in: an uncertain chat/responses row is sent again (never video). */
  resubmitUncertainText: boolean;
  /** How often in all a row may be resubmitted while uncertain (kept in the journal across runs). */
  maxAutoResubmits: number;
  /** The first wait; each further retry of the row doubles it, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_DELAY = { baseDelayMs: 30_000, maxDelayMs: 15 * 60_000 } as const;

/** A row this run moved to an end, as the rule needs to see it. */
export interface EndedRow {
  kind: ItemKind;
  state: ItemState;
  /** The state the run moved it from. */
  from: ItemState | undefined;
  errorStatus?: number | undefined;
  autoResubmits: number;
}

/**
 * How the row is sent again: `requeue` (failed/rejected -> pending, as `gbatch retry` records it) or
 * `resubmit` (uncertain -> pending, as `gbatch resolve --resubmit` does); undefined: it is not.
 * `retriesSoFar`: how often the policy already sent the row again in its life (the journal's `autoRetries`).
 */
export function autoRetryEvent(
  row: EndedRow,
  retriesSoFar: number,
  policy: AutoRetryPolicy,
): 'requeue' | 'resubmit' | undefined {
  if (row.state === 'uncertain') {
    // Only what the submission itself left unknown: a video task that vanished had an id and may be billed.
    const eligible =
      policy.resubmitUncertainText &&
      row.kind !== 'video' &&
      row.from === 'submitting' &&
      row.autoResubmits < policy.maxAutoResubmits;
    return eligible ? 'resubmit' : undefined;
  }
  if (!hasRetryLeft(retriesSoFar, policy)) return undefined;
  // The task's own FAILURE, seen by polling: refunded by the gateway (spec 8.3.4). A row failed from
  // `submitting` (an answer over --max-response-bytes, billed) or abandoned by an operator is not.
  if (row.state === 'failed')
    return row.kind === 'video' && (row.from === 'submitted' || row.from === 'running') ? 'requeue' : undefined;
  if (row.state === 'rejected') {
    const transient = row.errorStatus !== undefined && TRANSIENT_REJECTIONS.includes(row.errorStatus);
    return row.kind !== 'video' && row.from === 'submitting' && transient ? 'requeue' : undefined;
  }
  return undefined;
}

/** Whether the row's allowance has a send left after `retriesSoFar` automatic sends in its life. */
export function hasRetryLeft(retriesSoFar: number, policy: Pick<AutoRetryPolicy, 'retryFailed'>): boolean {
  return retriesSoFar < policy.retryFailed;
}

/** The wait before the row's `retry`-th automatic send (1-based): base * 2^(retry-1), at most maxDelayMs. */
export function autoRetryDelayMs(retry: number, policy: Pick<AutoRetryPolicy, 'baseDelayMs' | 'maxDelayMs'>): number {
  const exponent = Math.min(Math.max(0, Math.floor(retry) - 1), 30);
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
}

/** What the rule needs of a row an earlier run left `failed` or `rejected`. */
export interface LeftRow {
  kind: ItemKind;
  state: ItemState;
  /**
   * The task id a failed video row keeps from its task's FAILURE (an operator's abandon of a row never accepted has
   * none).
   */
  taskId: string | null;
  errorStatus?: number | undefined;
  /** The row's booked reservation: a refunded failure holds none. */
  reservedUsd: number;
  /** The operator abandoned it while uncertain (its request may have been billed): never the policy's. */
  abandonedWhileUncertain: boolean;
  /** Automatic sends of the row in its life so far (the journal's `autoRetries`). */
  autoRetries: number;
  /** Its task succeeded (billed) but its video could not be downloaded within the bound: never the policy's. */
  downloadForfeited: boolean;
}

/**
 * Whether the retry policy sends again, at the start of a run, a row an earlier run left `failed` or
 * `rejected`: a video row whose task failed (refunded: it keeps its task id and books nothing) and a text
 * row refused with a transient code, while the row's allowance has a send left. An earlier run's waiting
 * was cut short by its stop (a deadline, a signal), so a failure late in one night is not left waiting for
 * an operator; but a row's sends count across runs, so a batch run again and again sends it no more than
 * --retry-failed times in all. Never an operator's abandon, a download given up, nor a row failed any other way.
 */
export function retriedFromEarlierRun(row: LeftRow, policy: Pick<AutoRetryPolicy, 'retryFailed'>): boolean {
  if (!hasRetryLeft(row.autoRetries, policy) || row.abandonedWhileUncertain || row.downloadForfeited) return false;
  if (row.state === 'failed') return row.kind === 'video' && row.taskId !== null && row.reservedUsd === 0;
  if (row.state === 'rejected')
    return row.kind !== 'video' && row.errorStatus !== undefined && TRANSIENT_REJECTIONS.includes(row.errorStatus);
  return false;
}
