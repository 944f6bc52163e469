// OpenAI Responses bodies: the response object and its event stream (response.created ...
// response.output_text.delta ... response.completed), which the openai SDK consumes.

import type { Completion } from './text-generation.js';

export interface ResponsesAnswer {
  id: string;
  messageId: string;
  createdAt: number;
  model: string;
  completion: Completion;
  inputTokens: number;
  request: Record<string, unknown>;
}

/** Both vocabularies: the Responses API's input/output names and the spec's Usage (2.6) names. */
function usage(answer: ResponsesAnswer): unknown {
  const input = answer.inputTokens;
  const output = answer.completion.tokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
    prompt_tokens: input,
    completion_tokens: output,
  };
}

function message(answer: ResponsesAnswer, done: boolean): Record<string, unknown> {
  return {
    id: answer.messageId,
    type: 'message',
    status: done ? 'completed' : 'in_progress',
    role: 'assistant',
    content: done ? [{ type: 'output_text', text: answer.completion.text, annotations: [] }] : [],
  };
}

export function responseBody(answer: ResponsesAnswer, done = true): Record<string, unknown> {
  const r = answer.request;
  const cut = answer.completion.finishReason === 'length';
  return {
    id: answer.id,
    object: 'response',
    created_at: answer.createdAt,
    status: done ? (cut ? 'incomplete' : 'completed') : 'in_progress',
    error: null,
    incomplete_details: done && cut ? { reason: 'max_output_tokens' } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: answer.model,
    output: done ? [message(answer, true)] : [],
    parallel_tool_calls: true,
    previous_response_id: r.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    temperature: r.temperature ?? 1,
    text: { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    usage: done ? usage(answer) : null,
    metadata: {},
  };
}

export function responseFrames(answer: ResponsesAnswer): string[] {
  let sequence = 0;
  const frames: string[] = [];
  const event = (type: string, fields: Record<string, unknown>): void => {
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  };
  const at = { item_id: answer.messageId, output_index: 0, content_index: 0 };
  const text = answer.completion.text;
  event('response.created', { response: responseBody(answer, false) });
  event('response.in_progress', { response: responseBody(answer, false) });
  event('response.output_item.added', { output_index: 0, item: message(answer, false) });
  event('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
  for (const delta of answer.completion.pieces) event('response.output_text.delta', { ...at, delta, logprobs: [] });
  event('response.output_text.done', { ...at, text, logprobs: [] });
  event('response.content_part.done', { ...at, part: { type: 'output_text', text, annotations: [] } });
  event('response.output_item.done', { output_index: 0, item: message(answer, true) });
  const final = responseBody(answer, true);
  event(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return frames;
}
