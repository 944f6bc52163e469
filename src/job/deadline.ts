// `--deadline`: a duration ("90s", "45m", "2h", "1h30m", plain seconds), a time of day today ("06:30";
// "06:30+1d" for tomorrow's) or an ISO instant. A time of day or an instant already past is refused:
// "17:00" given at 17:59 never silently means tomorrow; so is one more than 366 days ahead. Pure: `now` is given.
import { MAX_DEADLINE_AHEAD_MS } from '../core/deadline.js';
import { UsageError } from './options.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDeadline(text: string, now: Date): number {
  const at = parseInstant(text, now);
  if (!(at - now.getTime() <= MAX_DEADLINE_AHEAD_MS)) {
    throw new UsageError(
      `\`--deadline ${text.trim()}\` is too far off: a deadline may lie at most 366 days ahead (until ${new Date(now.getTime() + MAX_DEADLINE_AHEAD_MS).toISOString()})`,
    );
  }
  return at;
}

/** `--drain`: a duration ("15m", "90s", "1h", plain seconds, 0 = none), in ms; at most a day. */
export function parseDrain(text: string): number {
  const ms = durationMs(text.trim());
  if (ms === undefined || ms > 86_400_000) {
    throw new UsageError(
      `Expected \`--drain\` to be a duration up to a day (15m, 90s, 1h; 0 = stop polling at the deadline), got \`${text}\``,
    );
  }
  return ms;
}

/** A duration ("90s", "45m", "1h30m", plain seconds) in ms, or undefined if the text is none. */
function durationMs(value: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join('') === value) {
    return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
  }
  return undefined;
}

function parseInstant(text: string, now: Date): number {
  const value = text.trim();
  const after = durationMs(value);
  if (after !== undefined) return now.getTime() + after;
  const clock = /^(\d{1,2}):(\d{2})(?:\+(\d{1,2})d)?$/.exec(value);
  if (clock) {
    const [hours, minutes, days] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (hours < 24 && minutes < 60) {
      const at = new Date(now);
      at.setHours(hours, minutes, 0, 0);
      at.setDate(at.getDate() + days);
      if (at.getTime() <= now.getTime()) {
        throw new UsageError(
          `\`--deadline ${value}\` is already past (it is ${hhmm(now)} now): for tomorrow's, say \`--deadline ${clock[1]}:${clock[2]}+1d\``,
        );
      }
      return at.getTime();
    }
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const at = Date.parse(value);
    if (Number.isFinite(at)) {
      if (at <= now.getTime())
        throw new UsageError(`\`--deadline ${value}\` is already past (now is ${now.toISOString()})`);
      return at;
    }
  }
  throw new UsageError(
    `Expected \`--deadline\` to be a duration (90s, 45m, 2h, 1h30m), a time of day (06:30, or 06:30+1d for tomorrow's) or an ISO instant, got \`${text}\``,
  );
}

/** The resolved deadline as a run prints it at start: local time with its offset, how far off, and UTC. */
export function describeDeadline(at: number, now: number): string {
  return `deadline: ${deadlineWhen(at, now)}`;
}

/** An instant in local time with its offset, how far off it is from `now`, and in UTC. */
export function deadlineWhen(at: number, now: number): string {
  const local = new Date(at);
  const offset = -local.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const date = `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ${hhmm(local)}${local.getSeconds() ? `:${pad(local.getSeconds())}` : ''}`;
  const left = at - now;
  const when = left <= 0 ? 'now: nothing new is sent' : `in ${span(left)}`;
  return `${date} ${zone} (${when}; ${new Date(at).toISOString().replace(/\.000Z$/, 'Z')})`;
}

function span(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (ms < 60_000) return `${Math.ceil(ms / 1000)}s`;
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  return `${days > 0 ? `${days}d` : ''}${days > 0 || hours > 0 ? `${hours}h` : ''}${pad(minutes % 60)}m`;
}

function hhmm(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
