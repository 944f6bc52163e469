// Video generation request checks (spec 2.9, 8, 8.1). The model itself is checked by the caller.

import { normaliseResolution, type Resolution, type VideoModel } from '../../core/models.js';
import { countReferenceVideos } from '../reference-video.js';
import { DEFAULT_SECONDS } from '../tokens.js';
import { checkFields, describe, field, invalid, isObject } from './fields.js';
import type { Body, Invalid } from './fields.js';

export const MAX_SECONDS = 3600;

export interface VideoRequest {
  prompt: string;
  resolution: Resolution;
  seconds: number;
  referenceVideos: number;
}

const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

/**
 * `duration`, else its alias `seconds`: an integer, or a numeric string, from 0 to 3600. Both report
 * `param: duration` (the alias is the same parameter); the message names the field that was sent.
 */
function parseSeconds(body: Body): number | Invalid {
  const field = body.duration !== undefined && body.duration !== null ? 'duration' : 'seconds';
  const value = body[field];
  if (value === undefined || value === null) return DEFAULT_SECONDS;
  let seconds: number | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) seconds = value;
  else if (typeof value === 'string' && NUMERIC.test(value)) seconds = Number(value);
  if (seconds === undefined) {
    return invalid(
      'duration',
      `'${field}' must be an integer or a numeric string, got ${describe(value)}`,
      'invalid_type',
    );
  }
  if (seconds < 0 || seconds > MAX_SECONDS) {
    return invalid('duration', `'${field}' must be from 0 to ${MAX_SECONDS} seconds, got ${value}`);
  }
  if (field === 'duration' && body.seconds !== undefined && body.seconds !== null) {
    const alias = parseSeconds({ seconds: body.seconds });
    if (typeof alias !== 'number') return alias;
  }
  return seconds;
}

function parseResolution(value: unknown, model: VideoModel): Resolution | Invalid {
  if (value === undefined || value === null) return '720p';
  if (typeof value !== 'string')
    return invalid('resolution', `'resolution' must be a string, got ${describe(value)}`, 'invalid_type');
  const resolution = normaliseResolution(value);
  if (resolution === undefined || !model.resolutions.includes(resolution)) {
    return invalid(
      'resolution',
      `resolution ${JSON.stringify(value)} is not supported by model '${model.id}' (supported: ${model.resolutions.join(', ')})`,
    );
  }
  return resolution;
}

/** A list of URL strings or objects with a string `url` (images, videos). */
function checkUrlList(param: string, value: unknown): Invalid | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    return invalid(param, `'${param}' must be an array, got ${describe(value)}`, 'invalid_type');
  const bad = value.findIndex(
    (item) => !(typeof item === 'string' || (isObject(item) && typeof item.url === 'string')),
  );
  return bad === -1
    ? undefined
    : invalid(
        `${param}[${bad}]`,
        `'${param}[${bad}]' must be a URL string or an object with a string 'url', got ${describe(value[bad])}`,
        'invalid_type',
      );
}

function checkMetadata(body: Body): Invalid | undefined {
  const value = body.metadata;
  if (value === undefined || value === null || isObject(value)) return undefined;
  if (typeof value === 'string') {
    try {
      if (isObject(JSON.parse(value))) return undefined;
    } catch {
      // reported below
    }
  }
  return invalid(
    'metadata',
    `'metadata' must be an object or a JSON string of an object, got ${describe(value)}`,
    'invalid_type',
  );
}

const VIDEO_FIELDS = [
  (body: Body) => checkUrlList('images', body.images),
  field.string('image'),
  field.string('input_reference'),
  field.string('video_url'),
  (body: Body) => checkUrlList('videos', body.videos),
  field.boolean('generate_audio'),
  checkMetadata,
  ...['width', 'height', 'fps', 'seed', 'n'].map((name) => field.number(name, { integer: true })),
  field.string('response_format'),
  field.string('user'),
];

export function validateVideoRequest(body: Body, model: VideoModel): VideoRequest | Invalid {
  if (body.prompt === undefined || body.prompt === null)
    return invalid('prompt', "'prompt' is required", 'missing_required_parameter');
  if (typeof body.prompt !== 'string')
    return invalid('prompt', `'prompt' must be a string, got ${describe(body.prompt)}`, 'invalid_type');
  if (body.prompt.trim() === '') return invalid('prompt', "'prompt' must not be blank");
  const resolution = parseResolution(body.resolution, model);
  if (typeof resolution !== 'string') return resolution;
  const seconds = parseSeconds(body);
  if (typeof seconds !== 'number') return seconds;
  const problem = checkFields(body, VIDEO_FIELDS);
  if (problem) return problem;
  return { prompt: body.prompt, resolution, seconds, referenceVideos: countReferenceVideos(body) };
}
