// A batch's `usage` as OpenAI's batch object has it: the tokens of its answered requests, summed. Pure.
import { usableChatUsage } from '../core/metering.js';

export interface BatchUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export const noUsage = (): BatchUsage => ({
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
});

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

const detail = (details: unknown, field: string): number =>
  typeof details === 'object' && details !== null ? count((details as Record<string, unknown>)[field]) : 0;

/**
 * `usage` with the tokens of one answer's body added: Chat Completions' (prompt/completion, their details) or
 * the Responses API's (input/output, their details). An answer without a usable usage adds nothing: what the
 * gateway did not count is not made up here (its cost is booked at its bound all the same).
 */
export function addAnswerUsage(usage: BatchUsage, body: unknown): BatchUsage {
  const raw = typeof body === 'object' && body !== null ? (body as { usage?: unknown }).usage : undefined;
  if (usableChatUsage(raw) === undefined) return usage;
  const fields = raw as Record<string, unknown>;
  const input = count(fields.prompt_tokens ?? fields.input_tokens);
  const output = count(fields.completion_tokens ?? fields.output_tokens);
  const cached = detail(fields.prompt_tokens_details ?? fields.input_tokens_details, 'cached_tokens');
  const reasoning = detail(fields.completion_tokens_details ?? fields.output_tokens_details, 'reasoning_tokens');
  return {
    input_tokens: usage.input_tokens + input,
    input_tokens_details: { cached_tokens: usage.input_tokens_details.cached_tokens + cached },
    output_tokens: usage.output_tokens + output,
    output_tokens_details: { reasoning_tokens: usage.output_tokens_details.reasoning_tokens + reasoning },
    total_tokens: usage.total_tokens + input + output,
  };
}
