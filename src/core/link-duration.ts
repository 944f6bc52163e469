// `report --presign-links DURATION`: how long a presigned link to an output object stays valid. S3's
// signatures (SigV4) last at most 7 days.
import { ConfigError } from './config-error.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };
export const MAX_LINK_SECONDS = 7 * 86400;

/** `90s`, `15m`, `12h`, `7d` (or plain seconds): the seconds, 1 to 7 days' worth. */
export function parseLinkDuration(text: string, what = '--presign-links'): number {
  const match = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!match) throw new ConfigError(`${what}: expected a duration such as 15m, 12h or 7d, got '${text.slice(0, 40)}'`);
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] || 's']!;
  if (seconds < 1 || seconds > MAX_LINK_SECONDS)
    throw new ConfigError(`${what}: a link lasts 1 second to 7 days (S3's limit), got ${text}`);
  return seconds;
}
