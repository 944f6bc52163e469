// The simulator driven by the real, unmodified openai SDK (issue 2, Proof).

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { KEY, simClock, OTHER_KEY, post, sseData } from '../helpers/sim-http.js';

const clock = simClock();
let sim: Simulator;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator({
    accounts: [
      { key: KEY, balanceUsd: 50 },
      { key: OTHER_KEY, balanceUsd: 50, models: ['chat-small'] },
      { key: 'sk-test-revoked', balanceUsd: 50, revoked: true },
      { key: 'sk-test-limited', balanceUsd: 50, rateLimitPerMinute: 2 },
    ],
    clock,
  });
  client = new OpenAI({ baseURL: sim.baseUrl, apiKey: KEY, maxRetries: 0 });
});
afterAll(() => sim.close());

describe('models', () => {
  test('models.list gives every model of the contract, owned by gbatch-sim', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual([
      'video-fast',
      'video-mini',
      'video-pro',
      'video-pro-2.5',
      'chat-small',
      'chat-large',
    ]);
    for (const model of page.data)
      expect(model).toMatchObject({ object: 'model', owned_by: 'gbatch-sim', created: expect.any(Number) });
  });

  test('the list is scoped to the account', async () => {
    const other = new OpenAI({ baseURL: sim.baseUrl, apiKey: OTHER_KEY, maxRetries: 0 });
    const models = await other.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['chat-small']);
  });
});

describe('chat completions', () => {
  const messages = [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: 'Describe a river at dawn.' },
  ];

  test('a full response with usage, deterministic for the same input', async () => {
    const first = await client.chat.completions.create({ model: 'chat-small', messages });
    const second = await client.chat.completions.create({ model: 'chat-small', messages });
    expect(first.object).toBe('chat.completion');
    expect(first.model).toBe('chat-small');
    expect(first.choices).toHaveLength(1);
    expect(first.choices[0]!.message.role).toBe('assistant');
    expect(first.choices[0]!.message.content).toMatch(/^[A-Z][a-z ]+\.$/);
    expect(first.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    // 14 + 25 characters of message text -> ceil(39 / 4) = 10 prompt tokens.
    expect(first.usage).toMatchObject({ prompt_tokens: 10, total_tokens: 10 + first.usage!.completion_tokens });
    expect(first.usage!.completion_tokens).toBe(first.choices[0]!.message.content!.split(' ').length);
  });

  test('max_tokens bounds the completion; n gives n choices', async () => {
    const cut = await client.chat.completions.create({ model: 'chat-large', messages, max_tokens: 4, n: 3 });
    expect(cut.choices).toHaveLength(3);
    for (const choice of cut.choices) {
      expect(choice.message.content!.split(' ')).toHaveLength(4);
      expect(choice.finish_reason).toBe('length');
    }
    expect(cut.usage!.completion_tokens).toBe(12);
    const none = await client.chat.completions.create({ model: 'chat-small', messages, max_completion_tokens: 0 });
    expect(none.usage!.completion_tokens).toBe(0);
  });

  test('stream: role first, content deltas, finish_reason, a usage chunk, and the same text', async () => {
    const full = await client.chat.completions.create({ model: 'chat-small', messages });
    const stream = await client.chat.completions.create({
      model: 'chat-small',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(full.choices[0]!.message.content);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0]!.finish_reason)).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(full.usage);
  });

  test('stream without include_usage has no usage chunk; the wire ends with data: [DONE]', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', KEY, { model: 'chat-small', messages, stream: true });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = sseData(await res.text());
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    expect(chunks.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
  });
});

describe('responses', () => {
  test('a full response: output text and usage', async () => {
    const response = await client.responses.create({
      model: 'chat-large',
      input: 'Name three colours.',
      instructions: 'Be brief.',
    });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text.length).toBeGreaterThan(0);
    // 19 + 9 characters -> 7 input tokens.
    expect(response.usage).toMatchObject({ input_tokens: 7, total_tokens: 7 + response.usage!.output_tokens });
  });

  test('max_output_tokens cuts the answer: status incomplete', async () => {
    const response = await client.responses.create({
      model: 'chat-small',
      input: [{ role: 'user', content: 'Go on.' }],
      max_output_tokens: 2,
    });
    expect(response.status).toBe('incomplete');
    expect(response.usage!.output_tokens).toBe(2);
  });

  test('stream: created, text deltas, completed with usage', async () => {
    const full = await client.responses.create({ model: 'chat-small', input: 'Stream me.' });
    const stream = await client.responses.create({ model: 'chat-small', input: 'Stream me.', stream: true });
    const types: string[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
    expect(text).toBe(full.output_text);
    expect(completed!.usage).toEqual(full.usage);
  });

  test("the SDK's stream helper assembles the final response", async () => {
    const final = await client.responses.stream({ model: 'chat-small', input: 'Stream me.' }).finalResponse();
    const full = await client.responses.create({ model: 'chat-small', input: 'Stream me.' });
    expect(final.output_text).toBe(full.output_text);
  });
});

describe('errors as the SDK sees them', () => {
  test('401 AuthenticationError for an unknown or revoked key, and the key is not echoed', async () => {
    for (const apiKey of ['sk-test-unknown', 'sk-test-revoked']) {
      const bad = new OpenAI({ baseURL: sim.baseUrl, apiKey, maxRetries: 0 });
      const err = await bad.models.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
      expect(JSON.stringify((err as { error: unknown }).error)).not.toContain(apiKey);
    }
  });

  test('400 BadRequestError names the parameter', async () => {
    const err = await client.chat.completions
      .create({ model: 'chat-small', messages: [{ role: 'user', content: 'x' }], temperature: 3 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, param: 'temperature', type: 'invalid_request_error' });
    const responsesErr = await client.responses
      .create({ model: 'chat-small', input: 'x', max_output_tokens: -1 })
      .catch((e: unknown) => e);
    expect(responsesErr).toMatchObject({ status: 400, param: 'max_output_tokens' });
  });

  test('a model the account may not use is forbidden (403)', async () => {
    const other = new OpenAI({ baseURL: sim.baseUrl, apiKey: OTHER_KEY, maxRetries: 0 });
    const err = await other.chat.completions
      .create({ model: 'chat-large', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, param: 'model' });
  });

  test('429 RateLimitError carries Retry-After: the seconds left in the minute', async () => {
    const limited = new OpenAI({ baseURL: sim.baseUrl, apiKey: 'sk-test-limited', maxRetries: 0 });
    const ask = () =>
      limited.chat.completions.create({ model: 'chat-small', messages: [{ role: 'user', content: 'x' }] });
    clock.tick(60_000 - (clock.now() % 60_000) + 20_000); // 20 s into a fresh window
    await ask();
    await ask();
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('40');
    clock.tick(40_000);
    await expect(ask()).resolves.toMatchObject({ object: 'chat.completion' });
  });
});
