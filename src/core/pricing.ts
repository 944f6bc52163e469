import { z } from 'zod';
import type { Resolution } from './models.js';

/** USD per 1,000,000 final total_tokens, with and without a reference video (spec 8.2). */
export interface VideoRate {
  ref: number;
  noref: number;
}
export interface ChatRate {
  input_per_1m: number;
  output_per_1m: number;
}

export interface PricingTable {
  group_ratio: number;
  video: Record<string, Partial<Record<Resolution, VideoRate>>>;
  chat: Record<string, ChatRate>;
}

const fast480_720: VideoRate = { ref: 2.2647, noref: 3.8088 };
const mini480_720: VideoRate = { ref: 1.0294, noref: 1.6912 };
const pro480_720: VideoRate = { ref: 3.0882, noref: 5.0735 };

/** The spec's table (8.2) under the simulator's model ids, and the contract's chat rates. */
/** How messages name the built-in table. */
export const BUILTIN_PRICING_SOURCE = 'built-in (spec 8.2)';

export const BUILTIN_PRICING: PricingTable = {
  group_ratio: 1,
  video: {
    'video-fast': { '480p': fast480_720, '720p': fast480_720, '1080p': { ref: 2.5221, noref: 4.3235 } },
    'video-mini': { '480p': mini480_720, '720p': mini480_720, '1080p': { ref: 1.1397, noref: 1.875 } },
    'video-pro': {
      '480p': pro480_720,
      '720p': pro480_720,
      '1080p': { ref: 3.4191, noref: 5.625 },
      '4k': { ref: 1.7647, noref: 2.8676 },
    },
    'video-pro-2.5': { '720p': { ref: 4.9412, noref: 8.2353 }, '1080p': { ref: 5.4706, noref: 9.0588 } },
  },
  chat: {
    'chat-small': { input_per_1m: 0.15, output_per_1m: 0.6 },
    'chat-large': { input_per_1m: 2.5, output_per_1m: 10 },
  },
};

const rate = z.number().finite().nonnegative();
const videoRateSchema = z.object({ ref: rate, noref: rate }).strict();
export const pricingFileSchema = z
  .object({
    group_ratio: z.number().finite().positive().default(1),
    video: z.record(z.string(), z.partialRecord(z.enum(['480p', '720p', '1080p', '4k']), videoRateSchema)).default({}),
    chat: z.record(z.string(), z.object({ input_per_1m: rate, output_per_1m: rate }).strict()).default({}),
  })
  .strict();

/** Parses a pricing file's JSON text; throws an Error naming the file and the offending field. */
export function parsePricing(text: string, file: string): PricingTable {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: pricing file is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = pricingFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: pricing field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data as PricingTable;
}

export function videoRate(
  table: PricingTable,
  model: string,
  resolution: Resolution,
  hasReferenceVideo: boolean,
): number | undefined {
  const r = table.video[model]?.[resolution];
  if (!r) return undefined;
  return hasReferenceVideo ? r.ref : r.noref;
}

export function chatRate(table: PricingTable, model: string): ChatRate | undefined {
  return table.chat[model];
}
