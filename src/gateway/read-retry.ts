// Bounded retries for safe reads (GET): 429, 5xx and network errors are retried; other 4xx are not.

import pRetry from 'p-retry';
import type { Clock } from '../core/clock.js';
import { retryDelay, shouldRetryRead, type Answer, type BackoffPolicy } from '../core/retry.js';
import { GatewayHttpError, GatewayTransportError } from './errors.js';

export interface ReadRetryDeps {
  clock: Clock;
  random: () => number;
  backoff: BackoffPolicy;
  onRetry(): void;
  /** The error to throw when the caller's signal ended the loop between attempts. */
  aborted(cause: unknown): Error;
}

/**
 * p-retry drives the loop; its own timer is bypassed (minTimeout 0) and the wait happens in
 * shouldRetry on the injected clock, so a ManualClock controls it. A 429 waits no backoff here:
 * it paused the whole account, and the next attempt waits for that pause before leaving.
 */
export async function retryRead<T>(
  deps: ReadRetryDeps,
  attemptOnce: (attempt: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await pRetry(attemptOnce, {
      retries: Math.max(0, deps.backoff.maxAttempts - 1),
      minTimeout: 0,
      ...(signal ? { signal } : {}),
      shouldRetry: async ({ error, attemptNumber }) => {
        let answer: Answer | undefined;
        if (error instanceof GatewayHttpError) answer = { status: error.status, bodyText: '' };
        else if (!(error instanceof GatewayTransportError) || error.code === 'GBATCH_ABORTED') return false;
        if (!shouldRetryRead(answer)) return false;
        deps.onRetry();
        if (answer?.status !== 429) {
          await deps.clock.sleep(
            retryDelay(answer, attemptNumber, deps.backoff, deps.clock.now(), deps.random),
            signal,
          );
        }
        return true;
      },
    });
  } catch (err) {
    if (signal?.aborted && !(err instanceof GatewayTransportError)) throw deps.aborted(err);
    throw err;
  }
}
