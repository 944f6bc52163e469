import { describe, expect, test } from 'vitest';
import { validateChatRequest } from '../../../src/sim/validate/chat.js';
import { validateResponsesRequest } from '../../../src/sim/validate/responses.js';

const messages = [{ role: 'user', content: 'hi' }];

describe('chat completion constraints (spec 2.4, 8)', () => {
  test('a full valid request passes', () => {
    expect(
      validateChatRequest({
        model: 'chat-small',
        messages: [
          { role: 'system', content: 's' },
          { role: 'developer', content: [{ type: 'text', text: 'd' }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function' }] },
          { role: 'tool', content: 'r', tool_call_id: 't' },
          { role: 'user', content: 'u', name: 'n' },
        ],
        temperature: 2,
        top_p: 0,
        n: 1,
        stream: true,
        stream_options: { include_usage: true },
        stop: ['a', 'b'],
        max_tokens: 0,
        max_completion_tokens: 10,
        presence_penalty: -2,
        frequency_penalty: 2,
        reasoning_effort: 'high',
        tools: [{ type: 'function' }],
        tool_choice: 'required',
        response_format: { type: 'json_object' },
        user: 'u',
      }),
    ).toBeUndefined();
  });

  test.each([
    [{}, 'messages'],
    [{ messages: 'hi' }, 'messages'],
    [{ messages: [] }, 'messages'],
    [{ messages: ['hi'] }, 'messages[0]'],
    [{ messages: [{ content: 'x' }] }, 'messages[0].role'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    [{ messages: [{ role: 'user' }] }, 'messages[0].content'],
    [{ messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ messages: [{ role: 'user', content: ['x'] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: 'x', name: 3 }] }, 'messages[0].name'],
    [{ messages, temperature: 2.01 }, 'temperature'],
    [{ messages, temperature: -0.1 }, 'temperature'],
    [{ messages, temperature: '1' }, 'temperature'],
    [{ messages, top_p: 1.5 }, 'top_p'],
    [{ messages, n: 0 }, 'n'],
    [{ messages, n: 1.5 }, 'n'],
    [{ messages, stream: 'yes' }, 'stream'],
    [{ messages, stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage'],
    [{ messages, stop: [1] }, 'stop'],
    [{ messages, max_tokens: -1 }, 'max_tokens'],
    [{ messages, max_completion_tokens: 2.5 }, 'max_completion_tokens'],
    [{ messages, presence_penalty: 3 }, 'presence_penalty'],
    [{ messages, frequency_penalty: -3 }, 'frequency_penalty'],
    [{ messages, reasoning_effort: 'max' }, 'reasoning_effort'],
    [{ messages, tools: {} }, 'tools'],
    [{ messages, tool_choice: 'always' }, 'tool_choice'],
    [{ messages, response_format: 'json' }, 'response_format'],
    [{ messages, user: 7 }, 'user'],
  ])('%o -> %s', (body, param) => {
    expect(validateChatRequest(body)).toMatchObject({ param });
  });
});

describe('responses constraints (spec 2.7, 8)', () => {
  test('valid requests pass, a null counts as omitted', () => {
    expect(
      validateResponsesRequest({
        input: 'hi',
        instructions: 'be brief',
        max_output_tokens: 0,
        reasoning: { effort: 'low', summary: 'auto' },
        truncation: 'auto',
        tool_choice: { type: 'function' },
        previous_response_id: null,
      }),
    ).toBeUndefined();
    expect(validateResponsesRequest({ input: [{ role: 'user', content: 'hi' }], temperature: 1.5 })).toBeUndefined();
  });

  test.each([
    [{ input: 5 }, 'input'],
    [{ input: ['x'] }, 'input[0]'],
    [{ instructions: 1 }, 'instructions'],
    [{ max_output_tokens: -1 }, 'max_output_tokens'],
    [{ temperature: 'hot' }, 'temperature'],
    [{ stream: 1 }, 'stream'],
    [{ reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    [{ reasoning: 'low' }, 'reasoning'],
    [{ truncation: 'sometimes' }, 'truncation'],
    [{ previous_response_id: 3 }, 'previous_response_id'],
  ])('%o -> %s', (body, param) => {
    expect(validateResponsesRequest(body)).toMatchObject({ param });
  });
});
