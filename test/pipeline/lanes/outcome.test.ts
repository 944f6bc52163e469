import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { snapshotPrice } from '../../../src/core/settlement.js';
import { GatewayHttpError, GatewayTransportError } from '../../../src/gateway/errors.js';
import { planOutcome } from '../../../src/pipeline/lanes/outcome.js';
import { makeItem } from '../../helpers/journal-fixtures.js';

const MAX = 8;

function httpError(
  status: number,
  message: string,
  extra: Partial<ConstructorParameters<typeof GatewayHttpError>[0]> = {},
): GatewayHttpError {
  return new GatewayHttpError({ status, message, gatewayEnvelope: true, ...extra });
}

describe('planOutcome', () => {
  it('accepted (video): records the task id, keeps the reservation, polls next', () => {
    const item = makeItem({ kind: 'video', reservedUsd: 0.414778, lastError: { message: 'earlier 429' } });
    const plan = planOutcome(item, { kind: 'accepted', taskId: 'task_abc', body: { id: 'task_abc' } }, 2, MAX);
    expect(plan).toEqual({
      change: {
        id: item.id,
        event: 'accept',
        patch: { taskId: 'task_abc', lastError: null },
        detail: { taskId: 'task_abc', attempt: 2 },
      },
      money: { hold: true },
      followUp: { kind: 'poll' },
    });
    expect(plan.change.patch).not.toHaveProperty('reservedUsd');
  });

  it('accepted with `id` and `task_id` that differ: both kept, the first polled first', () => {
    const item = makeItem({ kind: 'video' });
    const plan = planOutcome(
      item,
      { kind: 'accepted', taskId: 'gw_1', body: { id: 'gw_1', task_id: 'task_1', status: 'queued' } },
      1,
      MAX,
    );
    expect(plan.change).toEqual({
      id: item.id,
      event: 'accept',
      patch: { taskId: 'gw_1', lastError: null, response: { task_ids: ['gw_1', 'task_1'] } },
      detail: { taskId: 'gw_1', attempt: 1, taskIds: ['gw_1', 'task_1'] },
    });
  });

  it('completed with chat usage: actual from the price snapshot, reservation replaced by it', () => {
    // chat-small: 0.15 in, 0.60 out per 1M tokens: 1000 in + 500 out = 0.00015 + 0.0003.
    const item = makeItem({ kind: 'chat', model: 'chat-small', reservedUsd: 0.002 });
    const body = {
      id: 'chatcmpl-1',
      choices: [],
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
    };
    const plan = planOutcome(item, { kind: 'completed', status: 200, body, requestId: 'req-1' }, 1, MAX);
    expect(plan.change).toEqual({
      id: item.id,
      event: 'complete',
      patch: {
        response: body,
        responseStatus: 200,
        requestId: 'req-1',
        actualUsd: 0.00045,
        reservedUsd: 0,
        totalTokens: 1500,
        lastError: null,
      },
      detail: { attempt: 1, actualUsd: 0.00045 },
    });
    expect(plan.money).toEqual({ settle: { reserved: 0.002, actual: 0.00045 } });
    expect(plan.followUp).toEqual({ kind: 'results' });
  });

  it("completed with responses usage (input/output tokens), at the snapshot price, not today's table", () => {
    // Snapshot taken at submission with doubled prices (group ratio 2) for chat-large: 2.50 in, 10.00 out.
    const snapshot = snapshotPrice('responses', 'chat-large', { ...BUILTIN_PRICING, group_ratio: 2 });
    const item = makeItem({ kind: 'responses', model: 'chat-large', reservedUsd: 0.05, priceSnapshot: snapshot });
    const body = { id: 'resp_1', output: [], usage: { input_tokens: 2000, output_tokens: 1000, total_tokens: 3000 } };
    const plan = planOutcome(item, { kind: 'completed', status: 200, body }, 3, MAX);
    // (2000 * 2.5 + 1000 * 10) / 1e6 * 2 = 0.03
    expect(plan.change.patch).toMatchObject({
      actualUsd: 0.03,
      reservedUsd: 0,
      totalTokens: 3000,
      requestId: null,
      responseStatus: 200,
    });
    expect(plan.money).toEqual({ settle: { reserved: 0.05, actual: 0.03 } });
  });

  it("completed after the gateway was seen charging x2 above the table: booked at the table's price x2, with a note", () => {
    const item = makeItem({ kind: 'chat', model: 'chat-small', reservedUsd: 0.002 });
    const body = {
      id: 'chatcmpl-1',
      choices: [],
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
    };
    const plan = planOutcome(item, { kind: 'completed', status: 200, body }, 1, MAX, 2);
    expect(plan.change.patch).toMatchObject({
      actualUsd: 0.0009,
      lastError: {
        message:
          "booked at the pricing table's $0.000450 x2.000: the gateway was seen charging that much above the table",
      },
    });
    expect(plan.change.detail).toEqual({ attempt: 1, actualUsd: 0.0009, tableUsd: 0.00045, driftRatio: 2 });
    expect(plan.money).toEqual({ settle: { reserved: 0.002, actual: 0.0009 } });
    // Unmetered: already booked at its reservation, which was scaled when it was taken.
    expect(
      planOutcome(makeItem({ reservedUsd: 0.01 }), { kind: 'completed', status: 200, body: { id: 'x' } }, 1, MAX, 2)
        .money,
    ).toEqual({ settle: { reserved: 0.01, actual: 0.01 } });
  });

  it('completed without usage is unmetered: booked at its reservation (the bound), never at $0', () => {
    const item = makeItem({ reservedUsd: 0.01 });
    const plan = planOutcome(item, { kind: 'completed', status: 200, body: { id: 'x' } }, 1, MAX);
    expect(plan.change.patch).toMatchObject({ actualUsd: 0.01, reservedUsd: 0, totalTokens: null, unmetered: true });
    expect(plan.change.detail).toMatchObject({ unmetered: true });
    expect(plan.money).toEqual({ settle: { reserved: 0.01, actual: 0.01 } });
  });

  it('completed with usage is metered: no unmetered mark', () => {
    const item = makeItem({ reservedUsd: 0.01 });
    const body = { id: 'x', usage: { prompt_tokens: 10, completion_tokens: 10 } };
    const plan = planOutcome(item, { kind: 'completed', status: 200, body }, 1, MAX);
    expect(plan.change.patch).not.toHaveProperty('unmetered');
  });

  it("rejected (4xx): terminal, reservation released, error summarised, the gateway's answer kept", () => {
    const item = makeItem({ reservedUsd: 0.02 });
    const body = { error: { message: 'model not found', type: 'invalid_request_error' }, extra: 1 };
    const error = httpError(400, 'model not found', {
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
      requestId: 'req_9',
      body,
    });
    const plan = planOutcome(item, { kind: 'rejected', error }, 1, MAX);
    expect(plan).toEqual({
      change: {
        id: item.id,
        event: 'reject',
        patch: {
          reservedUsd: 0,
          lastError: {
            status: 400,
            code: 'model_not_found',
            type: 'invalid_request_error',
            param: 'model',
            message: '400 model not found',
          },
          responseStatus: 400,
          requestId: 'req_9',
          response: body,
        },
        detail: { attempt: 1, status: 400 },
      },
      money: { release: 0.02 },
      followUp: { kind: 'none' },
    });
  });

  it('insufficient_balance (402): deferred, reservation released, all submissions stop', () => {
    const item = makeItem({ reservedUsd: 0.5, kind: 'video' });
    const plan = planOutcome(
      item,
      { kind: 'insufficient_balance', error: httpError(402, 'insufficient quota') },
      1,
      MAX,
    );
    expect(plan.change).toMatchObject({
      event: 'defer',
      patch: { reservedUsd: 0, lastError: { status: 402, message: '402 insufficient quota' } },
    });
    expect(plan.change.detail).toMatchObject({ reason: expect.stringContaining('402') });
    expect(plan.money).toEqual({ release: 0.5 });
    expect(plan.followUp).toEqual({ kind: 'stop-balance' });
  });

  it('retry below maxAttempts: back to pending, released, retried after the given delay', () => {
    const item = makeItem({ reservedUsd: 0.02 });
    const error = httpError(429, 'rate limited', { retryAfterMs: 2000 });
    const plan = planOutcome(item, { kind: 'retry', error, delayMs: 2000 }, MAX - 1, MAX);
    expect(plan.change).toEqual({
      id: item.id,
      event: 'retry',
      patch: { reservedUsd: 0, lastError: { status: 429, message: '429 rate limited' } },
      detail: { attempt: MAX - 1, delayMs: 2000, status: 429 },
    });
    expect(plan.money).toEqual({ release: 0.02 });
    expect(plan.followUp).toEqual({ kind: 'retry', delayMs: 2000 });
  });

  it('retry at maxAttempts: gives up for this run (left pending), reservation released', () => {
    const item = makeItem({ reservedUsd: 0.02 });
    const error = new GatewayTransportError('GBATCH_CONNECT', false, 'connect ECONNREFUSED 127.0.0.1:9');
    const plan = planOutcome(item, { kind: 'retry', error, delayMs: 500 }, MAX, MAX);
    expect(plan.change).toMatchObject({
      event: 'retry',
      patch: { reservedUsd: 0, lastError: { code: 'GBATCH_CONNECT' } },
    });
    expect(plan.change.detail).toEqual({ attempt: MAX, delayMs: 500 });
    expect(plan.money).toEqual({ release: 0.02 });
    expect(plan.followUp).toEqual({ kind: 'give-up' });
  });

  it('oversize: the answer was given and is billed: failed (never uncertain), its reservation booked as spend', () => {
    const item = makeItem({ kind: 'chat', reservedUsd: 0.0031 });
    const plan = planOutcome(item, { kind: 'oversize', status: 200, limit: 1000 }, 1, MAX);
    expect(plan.change).toEqual({
      id: item.id,
      event: 'oversize',
      patch: {
        actualUsd: 0.0031,
        reservedUsd: 0,
        responseStatus: 200,
        lastError: {
          status: 200,
          code: 'response_too_large',
          message: 'answer larger than --max-response-bytes (1000 bytes)',
        },
      },
      detail: { attempt: 1, limit: 1000, actualUsd: 0.0031 },
    });
    expect(plan.money).toEqual({ settle: { reserved: 0.0031, actual: 0.0031 } });
    expect(plan.followUp).toEqual({ kind: 'none' });
  });

  it('ambiguous: uncertain, the reservation is HELD (the gateway may charge it), nothing follows', () => {
    const item = makeItem({ kind: 'video', reservedUsd: 0.414778 });
    const error = new GatewayTransportError('GBATCH_TIMEOUT', true, 'headers timeout');
    const plan = planOutcome(item, { kind: 'ambiguous', error }, 1, MAX);
    expect(plan).toEqual({
      change: {
        id: item.id,
        event: 'lose',
        patch: { lastError: { code: 'GBATCH_TIMEOUT', message: 'headers timeout' } },
        detail: { attempt: 1 },
      },
      money: { hold: true },
      followUp: { kind: 'none' },
    });
    expect(plan.change.patch).not.toHaveProperty('reservedUsd');
  });
});
