// CSV cells are text; the gateway wants the spec's types. One table says which field is which.
import type { ItemKind } from '../core/states.js';
import type { RowIssue } from './types.js';
import { describe } from './validate-request.js';

type CellType =
  | 'number'
  | 'integer'
  | 'boolean'
  | 'duration' // integer or numeric string (spec 2.9): numeric text becomes a number
  | 'json' // arrays and objects: the cell holds JSON
  | 'json-when-braced' // string or structure: JSON when the cell starts with '[' or '{'
  | 'string';

const CELL_TYPES: Readonly<Record<string, CellType>> = {
  temperature: 'number',
  top_p: 'number',
  presence_penalty: 'number',
  frequency_penalty: 'number',
  n: 'integer',
  max_tokens: 'integer',
  max_completion_tokens: 'integer',
  max_output_tokens: 'integer',
  seed: 'integer',
  width: 'integer',
  height: 'integer',
  fps: 'integer',
  generate_audio: 'boolean',
  stream: 'boolean',
  duration: 'duration',
  images: 'json',
  videos: 'json',
  tools: 'json',
  metadata: 'json',
  content: 'json',
  reasoning: 'json',
  messages: 'json',
  stream_options: 'json',
  response_format: 'json',
  stop: 'json-when-braced',
  tool_choice: 'json-when-braced',
  input: 'json-when-braced',
};

/** Video's `response_format` is a string (spec 2.9); chat's is an object (spec 2.4). */
function cellType(field: string, kind: ItemKind | undefined): CellType {
  if (field === 'response_format' && kind === 'video') return 'string';
  return Object.hasOwn(CELL_TYPES, field) ? CELL_TYPES[field]! : 'string';
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  1: true,
  0: false,
  yes: true,
  no: false,
};

export type CellResult = { value: unknown; issue?: undefined } | { value?: undefined; issue: RowIssue };

/** Converts a non-blank cell to the type of its field. */
export function convertCell(field: string, text: string, kind: ItemKind | undefined): CellResult {
  const trimmed = text.trim();
  const fail = (expected: string): CellResult => ({ issue: { field, reason: `${expected}, got ${describe(text)}` } });
  switch (cellType(field, kind)) {
    case 'number':
      return DECIMAL.test(trimmed) ? { value: Number(trimmed) } : fail('must be a number');
    case 'integer':
      return DECIMAL.test(trimmed) && Number.isSafeInteger(Number(trimmed))
        ? { value: Number(trimmed) }
        : fail('must be an integer');
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      return Object.hasOwn(BOOLEANS, lower)
        ? { value: BOOLEANS[lower] }
        : fail('must be true or false (or 1/0, yes/no)');
    }
    case 'duration':
      return { value: DECIMAL.test(trimmed) ? Number(trimmed) : text };
    case 'json':
      return parseJsonCell(field, trimmed);
    case 'json-when-braced':
      return trimmed.startsWith('[') || trimmed.startsWith('{') ? parseJsonCell(field, trimmed) : { value: text };
    case 'string':
      return { value: text };
  }
}

function parseJsonCell(field: string, text: string): CellResult {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { issue: { field, reason: `must hold JSON: ${(err as Error).message}` } };
  }
}
