// Where notifications go (`--notify URL`, repeatable) and at which budget percentages (`--notify-at`,
// `--notify-reserved-at`).
// Checked before anything is sent: a bad value is a usage error naming the flag, never echoing a URL
// whole (a webhook URL's path is often its secret: Slack's is).
import { UsageError } from '../job/options.js';

export interface NotifySettings {
  urls: string[];
  /** Percent of the budget billed (`--notify-at`), ascending, without repeats. */
  thresholds: number[];
  /** Percent of the budget billed or reserved (`--notify-reserved-at`), ascending, without repeats. */
  reservedThresholds: number[];
}

/** A webhook URL as it may be printed: scheme and host; the path (where a token lives) elided. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const rest = parsed.pathname !== '/' || parsed.search !== '' ? '/…' : '/';
    return `${parsed.protocol}//${parsed.host}${rest}`;
  } catch {
    return '(not a URL)';
  }
}

export function parseNotifyUrls(urls: readonly string[]): string[] {
  return urls.map((url, i) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(
        `Expected --notify to be an http(s) URL, got a value that is not a URL (--notify number ${i + 1})`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(
        `Expected --notify to be an http(s) URL, got a ${parsed.protocol.replace(/:$/, '')}: URL (--notify number ${i + 1})`,
      );
    }
    if (parsed.username || parsed.password) {
      throw new UsageError(
        `--notify ${displayUrl(url)}: the URL must not carry a user or password (put a token in its path or query)`,
      );
    }
    return parsed.href;
  });
}

/** "50,80,100" -> [50, 80, 100]: percentages of the budget, each above 0 and at most 1000. */
export function parseThresholds(text: string | undefined, flag = '--notify-at'): number[] {
  if (text === undefined || text.trim() === '') return [];
  const values = text.split(',').map((part) => {
    const trimmed = part.trim();
    const n = Number(trimmed.replace(/%$/, ''));
    if (trimmed === '' || !Number.isFinite(n) || n <= 0 || n > 1000) {
      throw new UsageError(
        `Expected \`${flag}\` to be percentages of the budget separated by commas (e.g. 50,80,100), got \`${text}\``,
      );
    }
    return n;
  });
  return [...new Set(values)].sort((a, b) => a - b);
}

export function parseNotifySettings(flags: {
  notify?: readonly string[] | undefined;
  'notify-at'?: string | undefined;
  'notify-reserved-at'?: string | undefined;
}): NotifySettings {
  const urls = parseNotifyUrls(flags.notify ?? []);
  const thresholds = parseThresholds(flags['notify-at']);
  const reservedThresholds = parseThresholds(flags['notify-reserved-at'], '--notify-reserved-at');
  for (const [flag, given] of [
    ['--notify-at', thresholds],
    ['--notify-reserved-at', reservedThresholds],
  ] as const)
    if (given.length > 0 && urls.length === 0)
      throw new UsageError(`${flag} needs somewhere to send: add --notify URL`);
  return { urls, thresholds, reservedThresholds };
}
