// POST /v1/responses (spec 2.7, 2.8): validation, deterministic answer, usage, charge, event stream.

import type { Handler } from '../context.js';
import { json, type Reply } from '../reply.js';
import { responseBody, responseFrames, type ResponsesAnswer } from '../responses-format.js';
import { complete, responsesInput } from '../text-generation.js';
import { promptTokensForChars } from '../tokens.js';
import { validateResponsesRequest } from '../validate/responses.js';
import { chargeText, textRequest } from './text-common.js';

export const responsesHandler: Handler = (ctx, call): Reply => {
  const request = textRequest(call.account, call.body, validateResponsesRequest);
  if (!request.ok) return request.reply;
  const { body, model } = request;

  const input = responsesInput(body.input, body.instructions);
  const limit = body.max_output_tokens as number | null | undefined;
  const completion = complete(input, ctx.options.seed, 0, limit ?? undefined);
  const inputTokens = promptTokensForChars(input.chars);
  const refused = chargeText(ctx, call.account, model, inputTokens, completion.tokens, input.lastUserText);
  if (refused) return refused;

  const answer: ResponsesAnswer = {
    id: ctx.nextId('resp_'),
    messageId: ctx.nextId('msg_'),
    createdAt: Math.floor(ctx.clock.now() / 1000),
    model,
    completion,
    inputTokens,
    request: body,
  };
  return body.stream === true ? { kind: 'sse', frames: responseFrames(answer) } : json(responseBody(answer));
};
