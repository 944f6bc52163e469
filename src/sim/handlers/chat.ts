// POST /v1/chat/completions (spec 2.4, 2.5): validation, deterministic answer, usage, charge, SSE.

import { chatCompletionBody, chatCompletionFrames, type ChatAnswer } from '../chat-format.js';
import type { Handler } from '../context.js';
import type { Reply } from '../reply.js';
import { json } from '../reply.js';
import { chatInput, complete, type Completion } from '../text-generation.js';
import { promptTokensForChars } from '../tokens.js';
import { validateChatRequest } from '../validate/chat.js';
import { chargeText, textRequest } from './text-common.js';

export const chatHandler: Handler = (ctx, call): Reply => {
  const request = textRequest(call.account, call.body, validateChatRequest);
  if (!request.ok) return request.reply;
  const { body, model } = request;

  const input = chatInput(body.messages as unknown[]);
  const limit = (body.max_completion_tokens ?? body.max_tokens) as number | null | undefined;
  const n = (body.n as number | null | undefined) ?? 1;
  const choices: Completion[] = [];
  let completionTokens = 0;
  for (let i = 0; i < n; i++) {
    const c = complete(input, ctx.options.seed, i, limit ?? undefined);
    choices.push(c);
    completionTokens += c.tokens;
  }
  const promptTokens = promptTokensForChars(input.chars);
  const refused = chargeText(ctx, call.account, model, promptTokens, completionTokens, input.lastUserText);
  if (refused) return refused;

  const answer: ChatAnswer = {
    id: ctx.nextId('chatcmpl-'),
    created: Math.floor(ctx.clock.now() / 1000),
    model,
    choices,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
  if (body.stream === true) {
    const options = body.stream_options as { include_usage?: unknown } | null | undefined;
    return { kind: 'sse', frames: chatCompletionFrames(answer, options?.include_usage === true) };
  }
  return json(chatCompletionBody(answer));
};
