// Pure: what one submission's outcome does to its item, its money, and the run.
import { textAtDrift, type TextBooking } from '../../core/charge-check.js';
import { meterChatAnswer } from '../../core/metering.js';
import type { PriceSnapshot } from '../../core/settlement.js';
import type { SendOutcome } from '../../gateway/client.js';
import { errorSummary } from '../../gateway/errors.js';
import type { Change, Item } from '../../journal/index.js';
import { answeredTaskIds } from './task-ids.js';

export type FollowUp =
  | { kind: 'poll' } // a video task exists: poll it
  | { kind: 'results' } // a chat/responses body arrived: rebuild results.jsonl
  | { kind: 'retry'; delayMs: number } // the gateway kept nothing: send again after the delay
  | { kind: 'give-up' } // retryable, but the attempts are spent: left pending for a later run
  | { kind: 'stop-balance' } // 402: stop every submission
  | { kind: 'stop-auth' } // 401: the key is refused; no row is to blame
  | { kind: 'none' };

export interface OutcomePlan {
  change: Change;
  /** Money to move in the budget guard: the reservation is released, or replaced by the actual charge. */
  money: { release: number } | { settle: { reserved: number; actual: number } } | { hold: true };
  followUp: FollowUp;
  /** A metered text answer: what it was booked from (a higher ratio learned after it corrects it). */
  textBooking?: TextBooking;
}

/**
 * `lastAttempt`: the attempt number after which a retryable failure gives up in this run. `driftRatio`:
 * the ratio the gateway was seen charging above the pricing table; a text answer, whose usage says
 * nothing of its price, is booked at the table's price times it (textAtDrift).
 */
export function planOutcome(
  item: Item,
  outcome: SendOutcome,
  attempt: number,
  lastAttempt: number,
  driftRatio = 1,
): OutcomePlan {
  const reserved = item.reservedUsd;
  switch (outcome.kind) {
    case 'accepted':
      return acceptedPlan(item, outcome, attempt);
    case 'completed':
      return completedPlan(item, outcome, attempt, driftRatio);
    case 'rejected':
      return rejectedPlan(item, outcome, attempt);
    case 'insufficient_balance':
      return released(
        item,
        outcome.error,
        'defer',
        { attempt, reason: 'gateway balance (402)' },
        { kind: 'stop-balance' },
      );
    case 'retry':
      return released(
        item,
        outcome.error,
        'retry',
        { attempt, delayMs: outcome.delayMs, ...retryStatus(outcome.error) },
        attempt < lastAttempt ? { kind: 'retry', delayMs: outcome.delayMs } : { kind: 'give-up' },
      );
    case 'oversize': {
      // The gateway answered and bills it, so it is neither uncertain nor sent again; what it costs is
      // unknown (the usage is in the unread body): booked at its reservation, the row's upper bound.
      const message = `answer larger than --max-response-bytes (${outcome.limit} bytes)`;
      return {
        change: {
          id: item.id,
          event: 'oversize',
          patch: {
            actualUsd: reserved,
            reservedUsd: 0,
            responseStatus: outcome.status,
            lastError: { status: outcome.status, code: 'response_too_large', message },
          },
          detail: { attempt, limit: outcome.limit, actualUsd: reserved },
        },
        money: { settle: { reserved, actual: reserved } },
        followUp: { kind: 'none' },
      };
    }
    case 'ambiguous':
      // The gateway may have kept it (and may charge it): the reservation stays until an operator decides.
      return {
        change: { id: item.id, event: 'lose', patch: { lastError: errorSummary(outcome.error) }, detail: { attempt } },
        money: { hold: true },
        followUp: { kind: 'none' },
      };
  }
}

type Answer<K extends SendOutcome['kind']> = Extract<SendOutcome, { kind: K }>;

/** A video task the gateway accepted: the row waits for it, its reservation held until the task settles. */
function acceptedPlan(item: Item, outcome: Answer<'accepted'>, attempt: number): OutcomePlan {
  const ids = answeredTaskIds(outcome.body);
  return {
    change: {
      id: item.id,
      event: 'accept',
      patch: {
        taskId: outcome.taskId,
        lastError: null,
        ...(ids ? { response: ids } : {}),
        // A new task: its download has its tries anew (a row sent again after an earlier task's were counted).
        ...(item.downloadFailures > 0 ? { downloadFailures: 0 } : {}),
      },
      detail: { taskId: outcome.taskId, attempt, ...(ids ? { taskIds: ids.task_ids } : {}) },
    },
    money: { hold: true },
    followUp: { kind: 'poll' },
  };
}

/** A chat or responses answer: booked from its usage (at the drift ratio), or at its reservation when unmetered. */
function completedPlan(item: Item, outcome: Answer<'completed'>, attempt: number, driftRatio: number): OutcomePlan {
  const reserved = item.reservedUsd;
  // No usable usage: unmetered, booked at what was reserved (its bound), never at $0.
  const settled = meterChatAnswer(outcome.body, item.priceSnapshot as PriceSnapshot, reserved);
  const booked = settled.unmetered ? { usd: settled.usd } : textAtDrift(settled.usd, driftRatio);
  return {
    change: {
      id: item.id,
      event: 'complete',
      patch: {
        response: outcome.body,
        responseStatus: outcome.status,
        requestId: outcome.requestId ?? null,
        actualUsd: booked.usd,
        reservedUsd: 0,
        totalTokens: settled.totalTokens,
        lastError: booked.note ? { message: booked.note } : null,
        ...(settled.unmetered ? { unmetered: true } : {}),
      },
      detail: {
        attempt,
        actualUsd: booked.usd,
        ...(settled.unmetered ? { unmetered: true } : {}),
        ...(booked.note ? { tableUsd: settled.usd, driftRatio } : {}),
      },
    },
    money: { settle: { reserved, actual: booked.usd } },
    followUp: { kind: 'results' },
    ...(settled.unmetered ? {} : { textBooking: { tableUsd: settled.usd, ratio: driftRatio, usd: booked.usd } }),
  };
}

/** A refusal: the row is rejected, unless the key itself was refused (401), which stops the run. */
function rejectedPlan(item: Item, outcome: Answer<'rejected'>, attempt: number): OutcomePlan {
  // A refused key says nothing about the row: it goes back to pending, and the run stops.
  if (outcome.error.status === 401)
    return released(item, outcome.error, 'retry', { attempt, status: 401 }, { kind: 'stop-auth' });
  return released(
    item,
    outcome.error,
    'reject',
    { attempt, status: outcome.error.status },
    { kind: 'none' },
    {
      // The answer as it came, for an error line that carries the gateway's status, id and body unchanged.
      responseStatus: outcome.error.status,
      requestId: outcome.error.requestId ?? null,
      response: outcome.error.body ?? null,
    },
  );
}

/** An answer that kept nothing: the reservation given back, the error noted on the row. */
function released(
  item: Item,
  error: Error,
  event: Change['event'],
  detail: Change['detail'],
  followUp: FollowUp,
  patch: Change['patch'] = {},
): OutcomePlan {
  return {
    change: { id: item.id, event, patch: { reservedUsd: 0, lastError: errorSummary(error), ...patch }, detail },
    money: { release: item.reservedUsd },
    followUp,
  };
}

/**
 * The HTTP status of a retried answer (429, 5xx) in its event: the report marks pauses and bursts by it; a connect
 * failure has none.
 */
function retryStatus(error: Error): { status?: number } {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? { status } : {};
}
