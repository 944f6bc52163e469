// Chat completion request checks: every constraint of spec 2.3, 2.4 and section 8.

import {
  checkArrayOfObjects,
  checkEnum,
  checkFields,
  checkString,
  describe,
  field,
  invalid,
  isObject,
} from './fields.js';
import type { Body, FieldRule, Invalid } from './fields.js';

const ROLES = ['system', 'user', 'assistant', 'tool', 'developer'] as const;
const EFFORTS = ['low', 'medium', 'high'] as const;
const TOOL_CHOICES = ['none', 'auto', 'required'] as const;

function checkMessage(message: unknown, i: number): Invalid | undefined {
  const at = `messages[${i}]`;
  if (!isObject(message)) return invalid(at, `'${at}' must be an object, got ${describe(message)}`, 'invalid_type');
  if (message.role === undefined)
    return invalid(`${at}.role`, `'${at}.role' is required`, 'missing_required_parameter');
  const role = checkEnum(`${at}.role`, message.role, ROLES);
  if (role) return role;
  const content = message.content;
  // OpenAI lets an assistant message that carries tool_calls omit its content.
  const contentOptional = message.role === 'assistant' && Array.isArray(message.tool_calls);
  if (content === undefined || content === null) {
    return contentOptional
      ? undefined
      : invalid(`${at}.content`, `'${at}.content' is required`, 'missing_required_parameter');
  }
  if (typeof content !== 'string') {
    const parts = checkArrayOfObjects(`${at}.content`, content);
    if (parts) return parts;
  }
  return (
    checkString(`${at}.name`, message.name) ??
    checkArrayOfObjects(`${at}.tool_calls`, message.tool_calls) ??
    checkString(`${at}.tool_call_id`, message.tool_call_id)
  );
}

function checkMessages(body: Body): Invalid | undefined {
  const messages = body.messages;
  if (messages === undefined || messages === null)
    return invalid('messages', "'messages' is required", 'missing_required_parameter');
  if (!Array.isArray(messages))
    return invalid('messages', `'messages' must be an array, got ${describe(messages)}`, 'invalid_type');
  if (messages.length === 0) return invalid('messages', "'messages' must contain at least one message");
  for (let i = 0; i < messages.length; i++) {
    const problem = checkMessage(messages[i], i);
    if (problem) return problem;
  }
  return undefined;
}

function checkStop(body: Body): Invalid | undefined {
  const stop = body.stop;
  if (stop === undefined || stop === null || typeof stop === 'string') return undefined;
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return undefined;
  return invalid('stop', `'stop' must be a string or an array of strings, got ${describe(stop)}`, 'invalid_type');
}

const CHAT_FIELDS: readonly FieldRule[] = [
  checkMessages,
  field.number('temperature', { min: 0, max: 2 }),
  field.number('top_p', { min: 0, max: 1 }),
  field.number('n', { min: 1, integer: true }),
  field.boolean('stream'),
  field.object('stream_options'),
  field.boolean('stream_options.include_usage'),
  checkStop,
  field.number('max_tokens', { min: 0, integer: true }),
  field.number('max_completion_tokens', { min: 0, integer: true }),
  field.number('presence_penalty', { min: -2, max: 2 }),
  field.number('frequency_penalty', { min: -2, max: 2 }),
  field.oneOf('reasoning_effort', EFFORTS),
  field.objects('tools'),
  field.stringOrObject('tool_choice', TOOL_CHOICES),
  field.object('response_format'),
  field.string('user'),
];

/** Everything but the model (checked by the caller against the account). */
export function validateChatRequest(body: Body): Invalid | undefined {
  return checkFields(body, CHAT_FIELDS);
}
