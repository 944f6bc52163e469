import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  decideSubmission,
  DEFAULT_BACKOFF,
  extractTaskId,
  isGatewayEnvelope,
  parseRetryAfter,
  retryDelay,
  runBackoff,
  shouldRetryRead,
  type Answer,
  type SubmitDecision,
  type SubmitKind,
} from '../../src/core/retry.js';

const generalEnvelope = JSON.stringify({
  error: { message: 'upstream busy', type: 'new_api_error', param: null, code: 'busy' },
});
const taskEnvelope = JSON.stringify({ code: 'upstream_error', message: 'relay failed' });
const htmlPage = '<html><body><h1>502 Bad Gateway</h1></body></html>';

function answer(status: number, bodyText: string, extra: Partial<Answer> = {}): Answer {
  return { status, bodyText, ...extra };
}

describe('decideSubmission', () => {
  const cases: Array<[string, SubmitKind, Answer, SubmitDecision]> = [
    ['video 200 with id', 'video', answer(200, '{"id":"task_1","task_id":"task_1","status":"queued"}'), 'accepted'],
    ['video 200 with task_id only', 'video', answer(200, '{"task_id":"task_2"}'), 'accepted'],
    ['video 200 without id', 'video', answer(200, '{"status":"queued"}'), 'ambiguous'],
    ['video 200 with empty id', 'video', answer(200, '{"id":""}'), 'ambiguous'],
    ['video 200 unparseable', 'video', answer(200, '{"id":"task_'), 'ambiguous'],
    ['chat 200 JSON', 'chat', answer(200, '{"id":"c1","choices":[]}'), 'completed'],
    ['responses 200 JSON', 'responses', answer(200, '{"id":"r1","status":"completed"}'), 'completed'],
    [
      'chat 200 event stream',
      'chat',
      answer(200, 'data: {"id":"c1"}\n\n', { contentType: 'text/event-stream' }),
      'ambiguous',
    ],
    ['chat 200 JSON that is not an object', 'chat', answer(200, '"ok"'), 'ambiguous'],
    // A 2xx whose body is an error envelope is the server's refusal, not a result.
    ['chat 200 error envelope', 'chat', answer(200, generalEnvelope), 'rejected'],
    [
      'chat 200 error envelope without type (third-party)',
      'chat',
      answer(200, '{"error":{"message":"model overloaded"}}'),
      'rejected',
    ],
    ['chat 200 error as a string', 'chat', answer(200, '{"error":"quota exceeded"}'), 'rejected'],
    [
      'responses 200 error envelope',
      'responses',
      answer(200, '{"error":{"message":"bad input","code":400}}'),
      'rejected',
    ],
    [
      'chat 200 with choices and an error: a result (it may be billed)',
      'chat',
      answer(200, '{"choices":[],"error":{"message":"partial"}}'),
      'completed',
    ],
    [
      'responses 200 failed response object: a result',
      'responses',
      answer(200, '{"id":"r","status":"failed","output":[],"error":{"code":"server_error","message":"x"}}'),
      'completed',
    ],
    ['chat 200 with error null', 'chat', answer(200, '{"id":"c1","choices":[],"error":null}'), 'completed'],
    ['chat 200 error object without a message', 'chat', answer(200, '{"error":{"type":"x"}}'), 'completed'],
    ['video 200 task error envelope', 'video', answer(200, taskEnvelope), 'rejected'],
    ['video 200 general error envelope', 'video', answer(200, '{"error":{"message":"no such model"}}'), 'rejected'],
    ['video 200 code success without id', 'video', answer(200, '{"code":"success","message":"ok"}'), 'ambiguous'],
    [
      'video 200 error envelope with a task id: the task exists',
      'video',
      answer(200, '{"id":"task_9","error":{"message":"slow"}}'),
      'accepted',
    ],
    [
      '400 rejected',
      'video',
      answer(400, JSON.stringify({ error: { message: 'bad', type: 'invalid_request_error', param: 'prompt' } })),
      'rejected',
    ],
    ['401 rejected', 'chat', answer(401, generalEnvelope), 'rejected'],
    ['404 rejected', 'responses', answer(404, 'not found'), 'rejected'],
    ['402 insufficient balance', 'video', answer(402, taskEnvelope), 'insufficient_balance'],
    ['402 on chat', 'chat', answer(402, generalEnvelope), 'insufficient_balance'],
    ['429 retry', 'video', answer(429, generalEnvelope, { retryAfter: '3' }), 'retry'],
    ['429 without envelope retry', 'chat', answer(429, 'slow down'), 'retry'],
    ['500 general envelope retry', 'chat', answer(500, generalEnvelope), 'retry'],
    ['502 task envelope retry', 'video', answer(502, taskEnvelope), 'retry'],
    ['503 general envelope retry', 'responses', answer(503, generalEnvelope), 'retry'],
    ['502 html page ambiguous', 'video', answer(502, htmlPage, { contentType: 'text/html' }), 'ambiguous'],
    ['500 empty body ambiguous', 'chat', answer(500, ''), 'ambiguous'],
    ['503 JSON that is not the envelope ambiguous', 'video', answer(503, '{"message":"oops"}'), 'ambiguous'],
    ['504 even with envelope ambiguous', 'video', answer(504, generalEnvelope), 'ambiguous'],
    ['501 with envelope ambiguous', 'chat', answer(501, generalEnvelope), 'ambiguous'],
    ['301 ambiguous', 'video', answer(301, ''), 'ambiguous'],
    ['100 ambiguous', 'chat', answer(100, ''), 'ambiguous'],
  ];
  it.each(cases)('%s', (_name, kind, a, expected) => {
    expect(decideSubmission(kind, a)).toBe(expected);
  });
});

describe('isGatewayEnvelope', () => {
  it.each([
    [generalEnvelope, true],
    [taskEnvelope, true],
    ['{"error":{"message":"m"}}', false],
    ['{"error":"m"}', false],
    ['{"code":1,"message":"m"}', false],
    [htmlPage, false],
    ['', false],
    ['[]', false],
  ])('%s -> %s', (body, expected) => {
    expect(isGatewayEnvelope(body)).toBe(expected);
  });
});

describe('extractTaskId', () => {
  it('prefers id, falls back to task_id, tolerates a Shape A wrapper', () => {
    expect(extractTaskId({ id: 'a', task_id: 'b' })).toBe('a');
    expect(extractTaskId({ task_id: 'b' })).toBe('b');
    expect(extractTaskId({ code: 'success', data: { task_id: 'c' } })).toBe('c');
    expect(extractTaskId({ id: 42 })).toBeUndefined();
    expect(extractTaskId(null)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each<[string | undefined, number | undefined]>([
    ['5', 5000],
    [' 12 ', 12_000],
    ['0', 1000],
    ['1.5', 1500],
    ['Wed, 01 Jan 2025 00:00:30 GMT', 30_000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 1000],
    ['86400', 15 * 60_000],
    ['soon', undefined],
    ['-3', undefined],
    ['5 seconds', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s -> %s ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('backoffDelay', () => {
  const policy = { baseMs: 500, maxMs: 30_000, maxAttempts: 8 };
  it('is bounded by base * 2^(attempt-1) and the cap, with full jitter', () => {
    expect(backoffDelay(1, policy, () => 0.999999)).toBe(499);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(500);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(1000);
    expect(backoffDelay(20, policy, () => 0.5)).toBe(15_000);
    expect(backoffDelay(1000, policy, () => 0.999999)).toBeLessThanOrEqual(30_000);
    expect(backoffDelay(4, policy, () => 0)).toBe(0);
  });
  it('keeps a broken random source inside the bounds', () => {
    expect(backoffDelay(2, policy, () => 7)).toBe(1000);
    expect(backoffDelay(2, policy, () => -1)).toBe(0);
    expect(backoffDelay(0, policy, () => 0.5)).toBe(250);
  });
  it('never exceeds the cap across many draws', () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let attempt = 1; attempt <= 12; attempt++) {
      for (let i = 0; i < 50; i++) {
        const d = backoffDelay(attempt, DEFAULT_BACKOFF, random);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.baseMs * 2 ** (attempt - 1)));
      }
    }
  });
});

describe('runBackoff', () => {
  it('is the default unless GBATCH_GATEWAY_BACKOFF_MS names a positive base', () => {
    expect(runBackoff({})).toEqual(DEFAULT_BACKOFF);
    for (const knob of ['', '0', '-5', 'soon'])
      expect(runBackoff({ GBATCH_GATEWAY_BACKOFF_MS: knob })).toEqual(DEFAULT_BACKOFF);
    expect(runBackoff({ GBATCH_GATEWAY_BACKOFF_MS: '10' })).toEqual({ ...DEFAULT_BACKOFF, baseMs: 10 });
  });
});

describe('retryDelay', () => {
  const policy = { baseMs: 1000, maxMs: 8000, maxAttempts: 5 };
  it('uses Retry-After on a 429 and backoff otherwise', () => {
    expect(retryDelay(answer(429, '', { retryAfter: '7' }), 1, policy, 0, () => 0.5)).toBe(7000);
    expect(retryDelay(answer(429, ''), 3, policy, 0, () => 0.5)).toBe(2000);
    expect(retryDelay(answer(429, '', { retryAfter: 'later' }), 1, policy, 0, () => 0.5)).toBe(500);
    expect(retryDelay(answer(503, '', { retryAfter: '7' }), 2, policy, 0, () => 0.5)).toBe(1000);
    expect(retryDelay(undefined, 4, policy, 0, () => 0.5)).toBe(4000);
  });
});

describe('shouldRetryRead', () => {
  it.each<[Answer | undefined, boolean]>([
    [undefined, true],
    [answer(429, ''), true],
    [answer(500, ''), true],
    [answer(502, htmlPage), true],
    [answer(503, ''), true],
    [answer(504, ''), true],
    [answer(400, ''), false],
    [answer(401, ''), false],
    [answer(404, ''), false],
    [answer(200, ''), false],
  ])('%o -> %s', (a, expected) => {
    expect(shouldRetryRead(a)).toBe(expected);
  });
});
