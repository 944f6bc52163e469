// Every rule of the request schemas (spec 2.4, 2.7, 2.9, 8) and the pricing checks: one failing row each.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING, type PricingTable } from '../../src/core/pricing.js';
import type { ManifestEntry } from '../../src/manifest/types.js';
import { jsonl, readAll, tempDir, writeManifest } from '../helpers/manifest-reading.js';

const dir = tempDir();
const chat = { kind: 'chat', model: 'chat-small', messages: [{ role: 'user', content: 'hi' }] };
const responses = { kind: 'responses', model: 'chat-small', input: 'hi' };
const video = { kind: 'video', model: 'video-pro', prompt: 'a cat on a skateboard' };
const SECONDS_RULE = 'must be a whole number of seconds from 0 to 3600 (an integer or a numeric string)';

interface Case {
  name: string;
  row: Record<string, unknown>;
  errors: Array<[field: string | undefined, reason: string]>;
}

const without = (row: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => k !== key));

const CASES: Case[] = [
  { name: 'model missing', row: without(chat, 'model'), errors: [['model', 'is required']] },
  { name: 'model blank', row: { ...chat, model: '  ' }, errors: [['model', "must not be blank, got '  '"]] },
  { name: 'model not a string', row: { ...chat, model: 5 }, errors: [['model', 'must be a non-empty string, got 5']] },
  { name: 'chat messages missing', row: without(chat, 'messages'), errors: [['messages', 'is required']] },
  {
    name: 'chat messages empty',
    row: { ...chat, messages: [] },
    errors: [['messages', 'must be a non-empty array of messages, got an empty array']],
  },
  {
    name: 'message role unknown',
    row: { ...chat, messages: [{ role: 'bot', content: 'x' }] },
    errors: [['messages[0].role', "must be one of system, user, assistant, tool, developer, got 'bot'"]],
  },
  {
    name: 'message content not string or array',
    row: { ...chat, messages: [{ role: 'user', content: 5 }] },
    errors: [['messages[0].content', 'must be a string or an array of objects, got 5']],
  },
  {
    name: 'temperature above 2',
    row: { ...chat, temperature: 2.5 },
    errors: [['temperature', 'must be a number from 0 to 2, got 2.5']],
  },
  {
    name: 'temperature below 0',
    row: { ...chat, temperature: -0.1 },
    errors: [['temperature', 'must be a number from 0 to 2, got -0.1']],
  },
  {
    name: 'temperature not a number',
    row: { ...chat, temperature: '1' },
    errors: [['temperature', "must be a number from 0 to 2, got '1'"]],
  },
  { name: 'top_p above 1', row: { ...chat, top_p: 1.5 }, errors: [['top_p', 'must be a number from 0 to 1, got 1.5']] },
  { name: 'n below 1', row: { ...chat, n: 0 }, errors: [['n', 'must be an integer of at least 1, got 0']] },
  { name: 'n fractional', row: { ...chat, n: 1.5 }, errors: [['n', 'must be an integer of at least 1, got 1.5']] },
  {
    name: 'max_tokens negative',
    row: { ...chat, max_tokens: -1 },
    errors: [['max_tokens', 'must be an integer of at least 0, got -1']],
  },
  {
    name: 'max_completion_tokens fractional',
    row: { ...chat, max_completion_tokens: 2.5 },
    errors: [['max_completion_tokens', 'must be an integer of at least 0, got 2.5']],
  },
  {
    name: 'presence_penalty above 2',
    row: { ...chat, presence_penalty: 3 },
    errors: [['presence_penalty', 'must be a number from -2 to 2, got 3']],
  },
  {
    name: 'frequency_penalty below -2',
    row: { ...chat, frequency_penalty: -2.5 },
    errors: [['frequency_penalty', 'must be a number from -2 to 2, got -2.5']],
  },
  {
    name: 'reasoning_effort unknown',
    row: { ...chat, reasoning_effort: 'max' },
    errors: [['reasoning_effort', "must be one of low, medium, high, got 'max'"]],
  },
  {
    name: 'tool_choice string unknown',
    row: { ...chat, tool_choice: 'sometimes' },
    errors: [['tool_choice', "must be one of none, auto, required or an object, got 'sometimes'"]],
  },
  {
    name: 'stop not strings',
    row: { ...chat, stop: [1] },
    errors: [['stop', 'must be a string or an array of strings, got an array']],
  },
  {
    name: 'stream true',
    row: { ...chat, stream: true },
    errors: [['stream', 'batch rows are not streamed: remove it or set it to false, got true']],
  },
  {
    name: 'responses input not string or array',
    row: { ...responses, input: 5 },
    errors: [['input', 'must be a string or an array of objects, got 5']],
  },
  {
    name: 'max_output_tokens negative',
    row: { ...responses, max_output_tokens: -1 },
    errors: [['max_output_tokens', 'must be an integer of at least 0, got -1']],
  },
  {
    name: 'reasoning.effort unknown',
    row: { ...responses, reasoning: { effort: 'max' } },
    errors: [['reasoning.effort', "must be one of low, medium, high, got 'max'"]],
  },
  {
    name: 'truncation unknown',
    row: { ...responses, truncation: 'sometimes' },
    errors: [['truncation', "must be one of auto, disabled, got 'sometimes'"]],
  },
  {
    name: 'responses stream true',
    row: { ...responses, stream: true },
    errors: [['stream', 'batch rows are not streamed: remove it or set it to false, got true']],
  },
  { name: 'video prompt missing', row: without(video, 'prompt'), errors: [['prompt', 'is required']] },
  {
    name: 'video prompt blank',
    row: { ...video, prompt: ' \t ' },
    errors: [['prompt', 'must not be blank, got " \\t "']],
  }, // control characters: quoted as JSON
  {
    name: 'duration not numeric',
    row: { ...video, duration: 'abc' },
    errors: [['duration', `${SECONDS_RULE}, got 'abc'`]],
  },
  {
    name: 'duration above 3600',
    row: { ...video, duration: 3601 },
    errors: [['duration', `${SECONDS_RULE}, got 3601`]],
  },
  { name: 'duration negative', row: { ...video, duration: -1 }, errors: [['duration', `${SECONDS_RULE}, got -1`]] },
  { name: 'duration fractional', row: { ...video, duration: 2.5 }, errors: [['duration', `${SECONDS_RULE}, got 2.5`]] },
  {
    name: 'duration fractional string',
    row: { ...video, duration: '2.5' },
    errors: [['duration', `${SECONDS_RULE}, got '2.5'`]],
  },
  {
    name: 'seconds above 3600',
    row: { ...video, seconds: '3601' },
    errors: [['seconds', `${SECONDS_RULE}, got '3601'`]],
  },
  {
    name: 'duration and seconds disagree',
    row: { ...video, duration: 5, seconds: '10' },
    errors: [['seconds', 'is an alias of duration and must agree with it: duration is 5, seconds is 10']],
  },
  {
    name: 'resolution the model lacks',
    row: { ...video, model: 'video-fast', resolution: '4k' },
    errors: [['resolution', "'4k' is not supported by model 'video-fast'; supported: 480p, 720p, 1080p"]],
  },
  {
    name: 'resolution nobody has',
    row: { ...video, resolution: '8k' },
    errors: [['resolution', "'8k' is not supported by model 'video-pro'; supported: 480p, 720p, 1080p, 4k"]],
  },
  {
    name: 'resolution not a string',
    row: { ...video, resolution: 720 },
    errors: [['resolution', 'must be a string, got 720']],
  },
  {
    name: 'image list of numbers',
    row: { ...video, images: [1] },
    errors: [['images[0]', "must be an image URL string or an object with a string 'url', got 1"]],
  },
  {
    name: 'generate_audio not boolean',
    row: { ...video, generate_audio: 'yes' },
    errors: [['generate_audio', "must be a boolean, got 'yes'"]],
  },
  { name: 'width zero', row: { ...video, width: 0 }, errors: [['width', 'must be an integer of at least 1, got 0']] },
  {
    name: 'chat model without a price',
    row: { ...chat, model: 'gpt-x' },
    errors: [['model', "no price for model 'gpt-x' in the pricing table; add it with --pricing"]],
  },
  {
    name: 'video row naming a chat model',
    row: { ...video, model: 'chat-small' },
    errors: [
      [
        'model',
        "no price for model 'chat-small' in the pricing table (it is priced as a chat model); add it with --pricing",
      ],
    ],
  },
  {
    name: 'model named like an object property',
    row: { ...chat, model: 'constructor' },
    errors: [['model', "no price for model 'constructor' in the pricing table; add it with --pricing"]],
  },
  {
    name: 'video model named like an object property',
    row: { ...video, model: 'toString' },
    errors: [['model', "no price for model 'toString' in the pricing table; add it with --pricing"]],
  },
  {
    name: 'kind unknown',
    row: { ...chat, kind: 'image' },
    errors: [['kind', "must be one of chat, responses, video, got 'image'"]],
  },
  { name: 'kind missing', row: without(chat, 'kind'), errors: [['kind', 'is required']] },
  {
    name: 'several problems in one row',
    row: { ...chat, model: 'gpt-x', temperature: 3, top_p: 2 },
    errors: [
      ['temperature', 'must be a number from 0 to 2, got 3'],
      ['top_p', 'must be a number from 0 to 1, got 2'],
      ['model', "no price for model 'gpt-x' in the pricing table; add it with --pricing"],
    ],
  },
];

describe('request validation, one failing row per rule', () => {
  const file = writeManifest(dir, 'rules.jsonl', jsonl(...CASES.map((c, i) => ({ id: `case-${i}`, ...c.row }))));
  let entries: ManifestEntry[];

  it.each(CASES.map((c, i) => [c.name, i] as const))('%s', async (_name, i) => {
    entries ??= await readAll(file);
    const entry = entries[i]!;
    expect(entry.ok).toBe(false);
    if (entry.ok) return;
    expect(entry.line).toBe(i + 1);
    expect(entry.errors).toEqual(
      CASES[i]!.errors.map(([field, reason]) => ({
        file,
        line: i + 1,
        id: `case-${i}`,
        ...(field !== undefined ? { field } : {}),
        reason,
      })),
    );
  });
});

describe('rows the spec allows', () => {
  const accepted: Record<string, unknown>[] = [
    { ...video, duration: '5' },
    { ...video, duration: 5, seconds: '5' },
    { ...video, seconds: '0' },
    { ...video, resolution: '4K' },
    { ...video, model: 'video-fast' }, // omitted resolution: billed as 720p
    {
      ...video,
      images: ['https://x/a.png', { url: 'https://x/b.png', role: 'first_frame' }],
      video_url: 'https://x/v.mp4',
    },
    { ...video, metadata: '{"a":1}', content: [{ type: 'text', text: 'noir' }] },
    { ...chat, stream: false, stop: ['END', 'STOP'], tool_choice: { type: 'function', function: { name: 'f' } } },
    {
      ...chat,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      temperature: 0,
      top_p: 1,
      n: 1,
      max_tokens: 0,
    },
    {
      ...responses,
      input: [{ role: 'user', content: 'hi' }],
      instructions: 'be brief',
      reasoning: { effort: 'low' },
      truncation: 'auto',
    },
  ];

  it('accepts each, keeping the request exactly as written', async () => {
    const file = writeManifest(dir, 'accepted.jsonl', jsonl(...accepted.map((row, i) => ({ id: `ok-${i}`, ...row }))));
    const entries = await readAll(file);
    expect(entries.map((e) => (e.ok ? 'ok' : e.errors))).toEqual(accepted.map(() => 'ok'));
    const rows = entries.flatMap((e) => (e.ok ? [e.row] : []));
    expect(rows[3]!.request.resolution).toBe('4K');
    expect(rows[6]!.request).toMatchObject({ metadata: '{"a":1}', content: [{ type: 'text', text: 'noir' }] });
    expect(rows[0]).toMatchObject({ id: 'ok-0', kind: 'video', model: 'video-pro', line: 1 });
  });

  it('requires a resolution when the pricing entry cannot bill the 720p default', async () => {
    const pricing: PricingTable = { ...BUILTIN_PRICING, video: { 'video-hd': { '1080p': { ref: 1, noref: 2 } } } };
    const file = writeManifest(
      dir,
      'hd.jsonl',
      jsonl({ id: 'hd', ...video, model: 'video-hd' }, { id: 'hd2', ...video, model: 'video-hd', resolution: '1080p' }),
    );
    const [omitted, given] = await readAll(file, pricing);
    expect(omitted).toMatchObject({
      ok: false,
      errors: [
        {
          field: 'resolution',
          reason:
            "is required for model 'video-hd': an omitted resolution is billed as 720p, which its pricing entry lacks (supported: 1080p)",
        },
      ],
    });
    expect(given!.ok).toBe(true);
  });
});
