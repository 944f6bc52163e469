// `--deadline`: a duration ("90s", "45m", "2h", "1h30m", plain seconds), a time of day ("06:30", the next
// one to come) or an ISO instant. Pure: `now` is given.
import { UsageError } from './options.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDeadline(text: string, now: Date): number {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return now.getTime() + Number(value) * 1000;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join('') === value) {
    return now.getTime() + parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
  }
  const clock = /^(\d{1,2}):(\d{2})$/.exec(value);
  if (clock) {
    const [hours, minutes] = [Number(clock[1]), Number(clock[2])];
    if (hours < 24 && minutes < 60) {
      const at = new Date(now);
      at.setHours(hours, minutes, 0, 0);
      if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
      return at.getTime();
    }
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const at = Date.parse(value);
    if (Number.isFinite(at)) return at;
  }
  throw new UsageError(`Expected \`--deadline\` to be a duration (90s, 45m, 2h, 1h30m), a time of day (06:30) or an ISO instant, got \`${text}\``);
}
