// The gateway's request schemas (spec 2.3, 2.4, 2.7, 2.9, limits of section 8), one per item kind, and
// the request fields each kind defines. A JSON body's fields the spec does not define are kept as
// written (the gateway forwards a video's upstream, spec 1); flat rows and CSV columns are held to
// the fields the spec defines (row-assembly.ts), so that a note never leaves as part of a request.
import { z } from 'zod';
import { MAX_VIDEO_SECONDS } from '../core/models.js';
import type { ItemKind } from '../core/states.js';

const object = (error: string) => z.record(z.string(), z.unknown(), { error });
const string = (error = 'must be a string') => z.string({ error });
const numberIn = (min: number, max: number) =>
  z
    .number({ error: `must be a number from ${min} to ${max}` })
    .min(min)
    .max(max);
const integerFrom = (min: number) => z.int({ error: `must be an integer of at least ${min}` }).min(min);
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });
const arrayOfObjects = z.array(object('must be an object'), { error: 'must be an array of objects' });

const modelId = z
  .string({ error: 'must be a non-empty string' })
  .refine((s) => s.trim() !== '', { error: 'must not be blank' });

/** Batch rows are settled from one complete response; an event stream has nowhere to go. */
const notStreamed = z
  .boolean({ error: 'must be a boolean' })
  .refine((v) => v === false, { error: 'batch rows are not streamed: remove it or set it to false' });

const messageSchema = z.looseObject({
  role: oneOf(['system', 'user', 'assistant', 'tool', 'developer'] as const),
  content: z.union([z.string(), arrayOfObjects], { error: 'must be a string or an array of objects' }),
  name: string().optional(),
  tool_calls: arrayOfObjects.optional(),
  tool_call_id: string().optional(),
});

const toolChoice = (strings?: readonly [string, ...string[]]) =>
  z.union([strings ? z.enum(strings) : z.string(), object('')], {
    error: strings ? `must be one of ${strings.join(', ')} or an object` : 'must be a string or an object',
  });

export const chatRequestSchema = z.looseObject({
  model: modelId,
  messages: z
    .array(messageSchema, { error: 'must be a non-empty array of messages' })
    .min(1, { error: 'must be a non-empty array of messages' }),
  temperature: numberIn(0, 2).optional(),
  top_p: numberIn(0, 1).optional(),
  n: integerFrom(1).optional(),
  stream: notStreamed.optional(),
  stream_options: z
    .looseObject(
      { include_usage: z.boolean({ error: 'must be a boolean' }).optional() },
      { error: 'must be an object' },
    )
    .optional(),
  stop: z.union([z.string(), z.array(z.string())], { error: 'must be a string or an array of strings' }).optional(),
  max_tokens: integerFrom(0).optional(),
  max_completion_tokens: integerFrom(0).optional(),
  presence_penalty: numberIn(-2, 2).optional(),
  frequency_penalty: numberIn(-2, 2).optional(),
  reasoning_effort: oneOf(['low', 'medium', 'high'] as const).optional(),
  tools: arrayOfObjects.optional(),
  tool_choice: toolChoice(['none', 'auto', 'required'] as const).optional(),
  response_format: object('must be an object').optional(),
  user: string().optional(),
});

export const responsesRequestSchema = z.looseObject({
  model: modelId,
  input: z.union([z.string(), arrayOfObjects], { error: 'must be a string or an array of objects' }).optional(),
  instructions: string().optional(),
  max_output_tokens: integerFrom(0).optional(),
  temperature: z.number({ error: 'must be a number' }).optional(),
  top_p: z.number({ error: 'must be a number' }).optional(),
  stream: notStreamed.optional(),
  tools: arrayOfObjects.optional(),
  tool_choice: toolChoice().optional(),
  reasoning: z
    .looseObject(
      {
        effort: oneOf(['low', 'medium', 'high'] as const).optional(),
        summary: string().optional(),
      },
      { error: 'must be an object' },
    )
    .optional(),
  previous_response_id: string().optional(),
  truncation: oneOf(['auto', 'disabled'] as const).optional(),
});

/**
 * Seconds of a video: an integer or a string of one, 0 to 3600 (spec 2.9, 8). Fractions are refused
 * because the spec types it as an integer. Undefined for anything else.
 */
export function videoSeconds(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) n = Number(value);
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= MAX_VIDEO_SECONDS ? n : undefined;
}

const SECONDS_RULE = `must be a whole number of seconds from 0 to ${MAX_VIDEO_SECONDS} (an integer or a numeric string)`;
const seconds = z.unknown().refine((v) => videoSeconds(v) !== undefined, { error: SECONDS_RULE });

const mediaList = (what: string) =>
  z.array(
    z.union([z.string(), z.looseObject({ url: z.string() })], {
      error: `must be a${what === 'image' ? 'n' : ''} ${what} URL string or an object with a string 'url'`,
    }),
    { error: `must be an array of ${what} URL strings or objects with a string 'url'` },
  );

export const videoRequestSchema = z.looseObject({
  model: modelId,
  prompt: z.string({ error: 'must be a string' }).refine((s) => s.trim() !== '', { error: 'must not be blank' }),
  resolution: string().optional(),
  duration: seconds.optional(),
  seconds: seconds.optional(),
  images: mediaList('image').optional(),
  image: string().optional(),
  input_reference: string().optional(),
  video_url: string().optional(),
  videos: mediaList('video').optional(),
  // Structured provider content (spec 2.9): any JSON; a video item in it counts as a reference video.
  content: z.unknown().optional(),
  generate_audio: z.boolean({ error: 'must be a boolean' }).optional(),
  metadata: z.union([z.string(), object('')], { error: 'must be an object or a JSON string' }).optional(),
  // Frame size and rate feed the cost estimate: below 1 they are meaningless.
  width: integerFrom(1).optional(),
  height: integerFrom(1).optional(),
  fps: integerFrom(1).optional(),
  seed: z.int({ error: 'must be an integer' }).optional(),
  n: integerFrom(1).optional(),
  response_format: string().optional(),
  user: string().optional(),
});

export const REQUEST_SCHEMAS: Record<ItemKind, z.ZodType<Record<string, unknown>>> = {
  chat: chatRequestSchema,
  responses: responsesRequestSchema,
  video: videoRequestSchema,
};

/** The top-level request fields the spec defines for each kind (2.4, 2.7, 2.9). */
export const REQUEST_FIELDS: Readonly<Record<ItemKind, ReadonlySet<string>>> = {
  chat: new Set(Object.keys(chatRequestSchema.shape)),
  responses: new Set(Object.keys(responsesRequestSchema.shape)),
  video: new Set(Object.keys(videoRequestSchema.shape)),
};

/** The kinds whose requests define `field`, in ITEM_KINDS order. */
export function kindsWithField(field: string): ItemKind[] {
  return (Object.keys(REQUEST_FIELDS) as ItemKind[]).filter((kind) => REQUEST_FIELDS[kind].has(field));
}
