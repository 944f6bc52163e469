// One notification to one webhook: POST JSON, tried again with backoff on network errors, timeouts,
// 5xx and 429, within a total bound. Never throws: the outcome is returned for one log line.
import { Agent, type Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { nextStep, type AttemptAnswer, type SendPolicy } from './policy.js';

export interface SendOutcome {
  ok: boolean;
  attempts: number;
  reason?: string;
}

export interface SendDeps {
  dispatcher: Dispatcher;
  /** Times the total bound and the waits between attempts (an attempt's own bound is a socket timeout). */
  clock: Clock;
  random: () => number;
}

export function notifyAgent(policy: SendPolicy): Agent {
  return new Agent({
    connectTimeout: policy.attemptTimeoutMs,
    headersTimeout: policy.attemptTimeoutMs,
    bodyTimeout: policy.attemptTimeoutMs,
    keepAliveTimeout: 1_000,
  });
}

export async function postNotification(
  url: string,
  json: string,
  policy: SendPolicy,
  deps: SendDeps,
): Promise<SendOutcome> {
  const started = deps.clock.now();
  for (let attempt = 1; ; attempt++) {
    const left = policy.totalMs - (deps.clock.now() - started);
    const answer = await attemptOnce(
      url,
      json,
      AbortSignal.timeout(Math.max(1, Math.min(policy.attemptTimeoutMs, left))),
      deps.dispatcher,
    );
    const now = deps.clock.now();
    const step = nextStep(answer, attempt, now - started, policy, now, deps.random);
    if (step.kind === 'done') return { ok: true, attempts: attempt };
    if (step.kind === 'give-up') return { ok: false, attempts: attempt, reason: step.reason };
    // nextStep gives up on a wait that would end past the bound, so the next attempt starts inside it.
    await deps.clock.sleep(step.delayMs);
  }
}

async function attemptOnce(
  url: string,
  json: string,
  signal: AbortSignal,
  dispatcher: Dispatcher,
): Promise<AttemptAnswer> {
  try {
    const target = new URL(url);
    const response = await dispatcher.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      body: json,
      signal,
      headers: { 'content-type': 'application/json', 'user-agent': 'gbatch-notify' },
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const retryAfter = response.headers['retry-after'];
    return { status: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  } catch (err) {
    if (signal.aborted) return { error: 'timed out' };
    const code = (err as { code?: string }).code;
    return { error: code ?? 'network error' };
  }
}
