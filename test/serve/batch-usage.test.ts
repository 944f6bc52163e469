// A batch's usage: each answer's tokens, in either API's shape, summed; an unusable usage adds nothing.
import { describe, expect, it } from 'vitest';
import { addAnswerUsage, noUsage } from '../../src/serve/batch-usage.js';

describe('addAnswerUsage', () => {
  it("sums Chat Completions' and the Responses API's usage, their cached and reasoning tokens included", () => {
    const chat = {
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 3 },
      },
    };
    const responses = {
      usage: {
        input_tokens: 7,
        output_tokens: 9,
        total_tokens: 16,
        input_tokens_details: { cached_tokens: 1 },
        output_tokens_details: { reasoning_tokens: 2 },
      },
    };
    const bare = { usage: { prompt_tokens: 2, completion_tokens: 1 } };
    expect([chat, responses, bare].reduce(addAnswerUsage, noUsage())).toEqual({
      input_tokens: 21,
      input_tokens_details: { cached_tokens: 5 },
      output_tokens: 15,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 36,
    });
  });

  it('adds nothing for an answer without a usable usage, and no detail that is not a count', () => {
    const unusable = [
      null,
      'text',
      {},
      { usage: null },
      { usage: { total_tokens: 40 } },
      { usage: { prompt_tokens: -1, completion_tokens: 2 } },
      { usage: { prompt_tokens: '3', completion_tokens: 2 } },
    ];
    expect(unusable.reduce(addAnswerUsage, noUsage())).toEqual(noUsage());
    const odd = {
      usage: {
        prompt_tokens: 3,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 'many' },
        completion_tokens_details: null,
      },
    };
    expect(addAnswerUsage(noUsage(), odd)).toEqual({
      ...noUsage(),
      input_tokens: 3,
      output_tokens: 2,
      total_tokens: 5,
    });
  });
});
