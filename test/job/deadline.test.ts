import { describe, expect, it } from 'vitest';
import { describeDeadline, parseDeadline } from '../../src/job/deadline.js';
import { UsageError } from '../../src/job/options.js';

// Local time, as the operator's "06:30" means.
const at = (h: number, m: number, day = 15): Date => new Date(2026, 0, day, h, m, 0, 0);
const NOW = at(5, 0);

describe('parseDeadline', () => {
  it.each([
    ['90s', 90_000],
    ['45m', 45 * 60_000],
    ['2h', 2 * 3_600_000],
    ['1h30m', 90 * 60_000],
    ['1d', 86_400_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['120', 120_000],
    ['0.5', 500],
    [' 45m ', 45 * 60_000],
  ])('duration %j is now + %i ms', (text, ms) => {
    expect(parseDeadline(text, NOW)).toBe(NOW.getTime() + ms);
  });

  it.each(['0m', '0s', '0', '0h', '0ms', '0m0s'])(
    'a zero duration %j is now: the deadline has already passed',
    (text) => {
      expect(parseDeadline(text, NOW)).toBe(NOW.getTime());
    },
  );

  it('a time of day later today is today', () => {
    expect(parseDeadline('06:30', at(5, 0))).toBe(at(6, 30).getTime());
    expect(parseDeadline('6:05', at(5, 0))).toBe(at(6, 5).getTime());
  });

  it('a time of day already passed (or now) is refused in one line that suggests +1d, never silently tomorrow', () => {
    for (const [text, now] of [
      ['06:30', at(7, 0)],
      ['06:30', at(6, 30)],
      ['00:00', at(23, 59)],
      ['17:00', at(17, 59)],
    ] as const) {
      let thrown: unknown;
      try {
        parseDeadline(text, now);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, text).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).toBe(
        `\`--deadline ${text}\` is already past (it is ${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')} now): for tomorrow's, say \`--deadline ${text}+1d\``,
      );
    }
  });

  it('+1d (or +Nd) is that time of day N days from today', () => {
    expect(parseDeadline('17:00+1d', at(17, 59))).toBe(at(17, 0, 16).getTime());
    expect(parseDeadline('06:30+1d', at(5, 0))).toBe(at(6, 30, 16).getTime());
    expect(parseDeadline('06:30+2d', at(22, 0))).toBe(at(6, 30, 17).getTime());
  });

  it('an ISO instant is taken as is; one already past is refused', () => {
    const now = new Date(Date.UTC(2026, 0, 15, 9));
    expect(parseDeadline('2026-01-15T12:00:00Z', now)).toBe(Date.UTC(2026, 0, 15, 12));
    expect(parseDeadline('2026-01-15T12:00:00+02:00', now)).toBe(Date.UTC(2026, 0, 15, 10));
    expect(() => parseDeadline('2026-01-15T08:00:00Z', now)).toThrow(
      /^`--deadline 2026-01-15T08:00:00Z` is already past \(now is 2026-01-15T09:00:00.000Z\)$/,
    );
  });

  it('describes the resolved instant in local time with its offset, how far off, and in UTC', () => {
    const deadline = at(17, 0).getTime();
    const local = new Date(deadline);
    const offset = -local.getTimezoneOffset();
    const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
    const utc = new Date(deadline).toISOString().replace('.000Z', 'Z');
    expect(describeDeadline(deadline, at(13, 58).getTime())).toBe(
      `deadline: 2026-01-15 17:00 ${zone} (in 3h02m; ${utc})`,
    );
    expect(describeDeadline(deadline, deadline - 45_000)).toBe(`deadline: 2026-01-15 17:00 ${zone} (in 45s; ${utc})`);
    expect(describeDeadline(deadline, deadline - 26 * 3_600_000)).toBe(
      `deadline: 2026-01-15 17:00 ${zone} (in 1d2h00m; ${utc})`,
    );
    expect(describeDeadline(deadline, deadline)).toBe(
      `deadline: 2026-01-15 17:00 ${zone} (now: nothing new is sent; ${utc})`,
    );
  });

  it.each([
    '',
    'soon',
    '10x',
    '1h30',
    'h',
    '-5m',
    '25:00',
    '12:60',
    '6:5',
    '2026-13-45T00:00:00Z',
    '5 m',
    'tomorrow 06:30',
    '06:30+d',
    '06:30+1h',
  ])('garbage %j is a UsageError naming the flag and the value', (text) => {
    let thrown: unknown;
    try {
      parseDeadline(text, NOW);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(/^Expected `--deadline` to be a duration/);
    expect((thrown as Error).message).toContain(`got \`${text}\``);
  });
});

describe('parseDeadline: how far ahead', () => {
  it.each([
    ['25d', 25 * 86_400_000],
    ['366d', 366 * 86_400_000],
    ['8784h', 366 * 86_400_000],
  ])('%j is taken as written', (text, ms) => {
    expect(parseDeadline(text, NOW)).toBe(NOW.getTime() + ms);
  });

  it.each(['367d', '366d1ms', '99999999999h', '99999999999999999999999', '9'.repeat(400), '2999-01-01T00:00:00Z'])(
    '%j, more than 366 days ahead (or past what a Date holds), is refused in one line',
    (text) => {
      expect(() => parseDeadline(text, NOW)).toThrow(UsageError);
      expect(() => parseDeadline(text, NOW)).toThrow(
        /is too far off: a deadline may lie at most 366 days ahead \(until 2027-01-16T\d\d:00:00\.000Z\)$/,
      );
    },
  );
});
