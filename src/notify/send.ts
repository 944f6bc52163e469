// One notification to one webhook: POST JSON, tried again with backoff on network errors, timeouts,
// 5xx and 429, within a total bound. Never throws: the outcome is returned for one log line.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { nextStep, type AttemptAnswer, type SendPolicy } from './policy.js';

export interface SendOutcome { ok: boolean; attempts: number; reason?: string }

export interface SendDeps {
  dispatcher: Dispatcher;
  now: () => number;
  random: () => number;
}

export function notifyAgent(policy: SendPolicy): Agent {
  return new Agent({ connectTimeout: policy.attemptTimeoutMs, headersTimeout: policy.attemptTimeoutMs, bodyTimeout: policy.attemptTimeoutMs, keepAliveTimeout: 1_000 });
}

export async function postNotification(url: string, json: string, policy: SendPolicy, deps: SendDeps): Promise<SendOutcome> {
  const started = deps.now();
  const total = AbortSignal.timeout(policy.totalMs);
  for (let attempt = 1; ; attempt++) {
    const answer = await attemptOnce(url, json, AbortSignal.any([total, AbortSignal.timeout(policy.attemptTimeoutMs)]), deps.dispatcher);
    const step = nextStep(answer, attempt, deps.now() - started, policy, Date.now(), deps.random);
    if (step.kind === 'done') return { ok: true, attempts: attempt };
    if (step.kind === 'give-up' || total.aborted) return { ok: false, attempts: attempt, reason: step.kind === 'give-up' ? step.reason : `no answer within ${policy.totalMs / 1000} s` };
    try {
      await sleep(step.delayMs, undefined, { signal: total });
    } catch {
      return { ok: false, attempts: attempt, reason: `no success within ${policy.totalMs / 1000} s (last: ${describe(answer)})` };
    }
  }
}

async function attemptOnce(url: string, json: string, signal: AbortSignal, dispatcher: Dispatcher): Promise<AttemptAnswer> {
  try {
    const target = new URL(url);
    const response = await dispatcher.request({
      origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', body: json, signal,
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

function describe(answer: AttemptAnswer): string {
  return 'error' in answer ? answer.error : `HTTP ${answer.status}`;
}
