// Responses request checks: every constraint of spec 2.7 and section 8. Section 8 bounds temperature
// and top_p for chat only, so here they are checked as numbers without a range.

import { checkArrayOfObjects, checkFields, describe, field, invalid } from './fields.js';
import type { Body, FieldRule, Invalid } from './fields.js';

function checkInput(body: Body): Invalid | undefined {
  const input = body.input;
  if (input === undefined || input === null || typeof input === 'string') return undefined;
  if (!Array.isArray(input))
    return invalid('input', `'input' must be a string or an array of objects, got ${describe(input)}`, 'invalid_type');
  return checkArrayOfObjects('input', input);
}

const RESPONSES_FIELDS: readonly FieldRule[] = [
  checkInput,
  field.string('instructions'),
  field.number('max_output_tokens', { min: 0, integer: true }),
  field.number('temperature'),
  field.number('top_p'),
  field.boolean('stream'),
  field.objects('tools'),
  field.stringOrObject('tool_choice'),
  field.object('reasoning'),
  field.oneOf('reasoning.effort', ['low', 'medium', 'high']),
  field.string('reasoning.summary'),
  field.string('previous_response_id'),
  field.oneOf('truncation', ['auto', 'disabled']),
];

export function validateResponsesRequest(body: Body): Invalid | undefined {
  return checkFields(body, RESPONSES_FIELDS);
}
