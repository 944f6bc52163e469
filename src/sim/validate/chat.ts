// Chat completion request checks: every constraint of spec 2.3, 2.4 and section 8.

import {
  checkArrayOfObjects,
  checkBoolean,
  checkEnum,
  checkNumber,
  checkObject,
  checkString,
  checkStringOrObject,
  describe,
  firstInvalid,
  invalid,
  isObject,
  type Body,
  type Invalid,
} from './fields.js';

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
  return firstInvalid(
    () => checkString(`${at}.name`, message.name),
    () => checkArrayOfObjects(`${at}.tool_calls`, message.tool_calls),
    () => checkString(`${at}.tool_call_id`, message.tool_call_id),
  );
}

function checkStop(stop: unknown): Invalid | undefined {
  if (stop === undefined || stop === null || typeof stop === 'string') return undefined;
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return undefined;
  return invalid('stop', `'stop' must be a string or an array of strings, got ${describe(stop)}`, 'invalid_type');
}

/** Everything but the model (checked by the caller against the account). */
export function validateChatRequest(body: Body): Invalid | undefined {
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
  return firstInvalid(
    () => checkNumber('temperature', body.temperature, { min: 0, max: 2 }),
    () => checkNumber('top_p', body.top_p, { min: 0, max: 1 }),
    () => checkNumber('n', body.n, { min: 1, integer: true }),
    () => checkBoolean('stream', body.stream),
    () => checkObject('stream_options', body.stream_options),
    () =>
      checkBoolean(
        'stream_options.include_usage',
        isObject(body.stream_options) ? body.stream_options.include_usage : undefined,
      ),
    () => checkStop(body.stop),
    () => checkNumber('max_tokens', body.max_tokens, { min: 0, integer: true }),
    () => checkNumber('max_completion_tokens', body.max_completion_tokens, { min: 0, integer: true }),
    () => checkNumber('presence_penalty', body.presence_penalty, { min: -2, max: 2 }),
    () => checkNumber('frequency_penalty', body.frequency_penalty, { min: -2, max: 2 }),
    () => checkEnum('reasoning_effort', body.reasoning_effort, EFFORTS),
    () => checkArrayOfObjects('tools', body.tools),
    () => checkStringOrObject('tool_choice', body.tool_choice, TOOL_CHOICES),
    () => checkObject('response_format', body.response_format),
    () => checkString('user', body.user),
  );
}
