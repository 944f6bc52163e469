// Responses request checks: every constraint of spec 2.7 and section 8. Section 8 bounds temperature
// and top_p for chat only, so here they are checked as numbers without a range.

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

function checkInput(input: unknown): Invalid | undefined {
  if (input === undefined || input === null || typeof input === 'string') return undefined;
  if (!Array.isArray(input))
    return invalid('input', `'input' must be a string or an array of objects, got ${describe(input)}`, 'invalid_type');
  return checkArrayOfObjects('input', input);
}

export function validateResponsesRequest(body: Body): Invalid | undefined {
  const reasoning = isObject(body.reasoning) ? body.reasoning : {};
  return firstInvalid(
    () => checkInput(body.input),
    () => checkString('instructions', body.instructions),
    () => checkNumber('max_output_tokens', body.max_output_tokens, { min: 0, integer: true }),
    () => checkNumber('temperature', body.temperature),
    () => checkNumber('top_p', body.top_p),
    () => checkBoolean('stream', body.stream),
    () => checkArrayOfObjects('tools', body.tools),
    () => checkStringOrObject('tool_choice', body.tool_choice),
    () => checkObject('reasoning', body.reasoning),
    () => checkEnum('reasoning.effort', reasoning.effort, ['low', 'medium', 'high']),
    () => checkString('reasoning.summary', reasoning.summary),
    () => checkString('previous_response_id', body.previous_response_id),
    () => checkEnum('truncation', body.truncation, ['auto', 'disabled']),
  );
}
