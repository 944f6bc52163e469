// The retry policy's rule: which ended rows a run sends again by itself, and the wait before each retry.
import { expect, test } from 'vitest';
import {
  autoRetryDelayMs,
  autoRetryEvent,
  hasRetryLeft,
  retriedFromEarlierRun,
  TRANSIENT_REJECTIONS,
  type AutoRetryPolicy,
  type EndedRow,
} from '../../src/core/auto-retry.js';
import { ManualClock } from '../../src/core/clock.js';

const POLICY: AutoRetryPolicy = {
  retryFailed: 2,
  resubmitUncertainText: false,
  maxAutoResubmits: 3,
  baseDelayMs: 1000,
  maxDelayMs: 5000,
};
const row = (over: Partial<EndedRow>): EndedRow => ({
  kind: 'video',
  state: 'failed',
  from: 'running',
  autoResubmits: 0,
  ...over,
});

test('a video task that FAILED (seen polling: refunded) is requeued, up to --retry-failed times in the row life', () => {
  expect(autoRetryEvent(row({ from: 'running' }), 0, POLICY)).toBe('requeue');
  expect(autoRetryEvent(row({ from: 'submitted' }), 1, POLICY)).toBe('requeue');
  expect(autoRetryEvent(row({}), 2, POLICY)).toBeUndefined();
  expect(autoRetryEvent(row({}), 0, { ...POLICY, retryFailed: 0 })).toBeUndefined();
});

test('a failure gbatch booked at a bound or an operator abandoned is never sent again by the policy', () => {
  // An answer over --max-response-bytes fails its row from `submitting` (billed); `abandon` moves from
  // uncertain/pending/deferred.
  expect(autoRetryEvent(row({ kind: 'chat', from: 'submitting' }), 0, POLICY)).toBeUndefined();
  for (const from of ['uncertain', 'pending', 'deferred', undefined] as const)
    expect(autoRetryEvent(row({ from }), 0, POLICY)).toBeUndefined();
});

test('only a text refusal with a transient status (408, 425) is requeued; any other refusal is definite', () => {
  expect(TRANSIENT_REJECTIONS).toEqual([408, 425]);
  for (const status of [408, 425]) {
    expect(
      autoRetryEvent(row({ kind: 'chat', state: 'rejected', from: 'submitting', errorStatus: status }), 0, POLICY),
    ).toBe('requeue');
    expect(
      autoRetryEvent(row({ kind: 'responses', state: 'rejected', from: 'submitting', errorStatus: status }), 1, POLICY),
    ).toBe('requeue');
    expect(
      autoRetryEvent(row({ kind: 'video', state: 'rejected', from: 'submitting', errorStatus: status }), 0, POLICY),
    ).toBeUndefined();
  }
  for (const status of [400, 403, 404, 409, 413, 422, 200, undefined]) {
    expect(
      autoRetryEvent(row({ kind: 'chat', state: 'rejected', from: 'submitting', errorStatus: status }), 0, POLICY),
    ).toBeUndefined();
  }
});

test('uncertain rows are never part of --retry-failed; --resubmit-uncertain-text resends text ones, never video', () => {
  const lost = row({ kind: 'chat', state: 'uncertain', from: 'submitting' });
  expect(autoRetryEvent(lost, 0, POLICY)).toBeUndefined();
  const optIn = { ...POLICY, resubmitUncertainText: true };
  expect(autoRetryEvent(lost, 0, optIn)).toBe('resubmit');
  expect(autoRetryEvent({ ...lost, autoResubmits: 3 }, 0, optIn)).toBeUndefined();
  expect(autoRetryEvent({ ...lost, kind: 'video' }, 0, optIn)).toBeUndefined();
  // A video task that vanished (404 on every id) had an id: it may have been billed.
  expect(autoRetryEvent(row({ state: 'uncertain', from: 'running' }), 0, optIn)).toBeUndefined();
});

test('the backoff doubles per retry up to its ceiling; a ManualClock sleeper wakes exactly then', async () => {
  expect([1, 2, 3, 4, 5].map((n) => autoRetryDelayMs(n, POLICY))).toEqual([1000, 2000, 4000, 5000, 5000]);
  const clock = new ManualClock(0);
  let woke = false;
  void clock.sleep(autoRetryDelayMs(2, POLICY)).then(() => {
    woke = true;
  });
  await clock.advance(1999);
  expect(woke).toBe(false);
  await clock.advance(1);
  expect(woke).toBe(true);
});

test('rows an earlier run left: a refunded video failure and a transient text refusal are sent again; an abandon or another failure is not', () => {
  const policy = { retryFailed: 2 };
  const left = {
    kind: 'video' as const,
    state: 'failed' as const,
    taskId: 'task_1',
    reservedUsd: 0,
    abandonedWhileUncertain: false,
    autoRetries: 0,
    downloadForfeited: false,
  };
  expect(retriedFromEarlierRun(left, policy)).toBe(true);
  expect(retriedFromEarlierRun(left, { retryFailed: 0 })).toBe(false);
  // Abandoned by the operator: while uncertain (maybe billed), or before it was ever accepted (no task id).
  expect(retriedFromEarlierRun({ ...left, abandonedWhileUncertain: true }, policy)).toBe(false);
  expect(retriedFromEarlierRun({ ...left, taskId: null }, policy)).toBe(false);
  expect(retriedFromEarlierRun({ ...left, reservedUsd: 0.2 }, policy)).toBe(false);
  // A text row failed (over --max-response-bytes, billed) is not the policy's; a transient refusal is.
  expect(retriedFromEarlierRun({ ...left, kind: 'chat' }, policy)).toBe(false);
  for (const status of TRANSIENT_REJECTIONS)
    expect(
      retriedFromEarlierRun({ ...left, kind: 'chat', state: 'rejected', taskId: null, errorStatus: status }, policy),
    ).toBe(true);
  expect(
    retriedFromEarlierRun({ ...left, kind: 'chat', state: 'rejected', taskId: null, errorStatus: 400 }, policy),
  ).toBe(false);
  expect(retriedFromEarlierRun({ ...left, state: 'uncertain' }, policy)).toBe(false);
});

test('--retry-failed N is the row allowance in its whole life: each run starts from what earlier runs used', () => {
  const policy = { retryFailed: 2 };
  const left = {
    kind: 'video' as const,
    state: 'failed' as const,
    taskId: 'task_1',
    reservedUsd: 0,
    abandonedWhileUncertain: false,
    autoRetries: 0,
    downloadForfeited: false,
  };
  // Sends used by earlier runs (or servers) count: with N = 2, a row sent again twice is not sent a third time.
  expect([0, 1, 2, 3].map((autoRetries) => retriedFromEarlierRun({ ...left, autoRetries }, policy))).toEqual([
    true,
    true,
    false,
    false,
  ]);
  expect([0, 1, 2].map((used) => hasRetryLeft(used, policy))).toEqual([true, true, false]);
  // A larger N on a later run gives the rest of the larger allowance, never a new one.
  expect(retriedFromEarlierRun({ ...left, autoRetries: 2 }, { retryFailed: 3 })).toBe(true);
  // In the run, the count the row carries from the journal decides, whichever run made it.
  expect(autoRetryEvent(row({}), 1, POLICY)).toBe('requeue');
  expect(autoRetryEvent(row({}), 2, POLICY)).toBeUndefined();
});

test('a video whose task succeeded but whose download was given up is never sent again by the policy', () => {
  const forfeited = {
    kind: 'video' as const,
    state: 'failed' as const,
    taskId: 'task_1',
    reservedUsd: 0,
    abandonedWhileUncertain: false,
    autoRetries: 0,
    downloadForfeited: true,
  };
  expect(retriedFromEarlierRun(forfeited, { retryFailed: 2 })).toBe(false);
  // Seen in the run: it moved to failed from succeeded, not from a task's FAILURE.
  expect(autoRetryEvent(row({ from: 'succeeded' }), 0, POLICY)).toBeUndefined();
});
