// OpenAI chat completion bodies: the full JSON object and the `chat.completion.chunk` event stream.

import type { Completion } from './text-generation.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  choices: Completion[];
  usage: ChatUsage;
}

const FINGERPRINT = 'fp_gbatch_sim';

export function chatCompletionBody(answer: ChatAnswer): unknown {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    system_fingerprint: FINGERPRINT,
    choices: answer.choices.map((c, index) => ({
      index,
      message: { role: 'assistant', content: c.text, refusal: null },
      logprobs: null,
      finish_reason: c.finishReason,
    })),
    usage: answer.usage,
  };
}

/**
 * Role delta first, one content delta per word, a final chunk with finish_reason per choice, a usage
 * chunk with empty choices when asked for, then `data: [DONE]`.
 */
export function chatCompletionFrames(answer: ChatAnswer, includeUsage: boolean): string[] {
  const head = `{"id":${JSON.stringify(answer.id)},"object":"chat.completion.chunk","created":${answer.created},"model":${JSON.stringify(answer.model)},"system_fingerprint":"${FINGERPRINT}","choices":`;
  const usageNull = includeUsage ? ',"usage":null' : '';
  const frame = (choices: unknown[]): string => `data: ${head}${JSON.stringify(choices)}${usageNull}}\n\n`;
  const frames: string[] = [];
  answer.choices.forEach((c, index) => {
    frames.push(
      frame([{ index, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]),
    );
    for (const piece of c.pieces)
      frames.push(frame([{ index, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    frames.push(frame([{ index, delta: {}, logprobs: null, finish_reason: c.finishReason }]));
  });
  if (includeUsage) frames.push(`data: ${head}[],"usage":${JSON.stringify(answer.usage)}}\n\n`);
  frames.push('data: [DONE]\n\n');
  return frames;
}
