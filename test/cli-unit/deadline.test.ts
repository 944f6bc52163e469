import { describe, expect, it } from 'vitest';
import { parseDeadline } from '../../src/cli/deadline.js';
import { UsageError } from '../../src/cli/options.js';

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

  it.each(['0m', '0s', '0', '0h', '0ms', '0m0s'])('a zero duration %j is now: the deadline has already passed', (text) => {
    expect(parseDeadline(text, NOW)).toBe(NOW.getTime());
  });

  it('a time of day later today is today', () => {
    expect(parseDeadline('06:30', at(5, 0))).toBe(at(6, 30).getTime());
    expect(parseDeadline('6:05', at(5, 0))).toBe(at(6, 5).getTime());
  });

  it('a time of day already passed (or now) is tomorrow', () => {
    expect(parseDeadline('06:30', at(7, 0))).toBe(at(6, 30, 16).getTime());
    expect(parseDeadline('06:30', at(6, 30))).toBe(at(6, 30, 16).getTime());
    expect(parseDeadline('00:00', at(23, 59))).toBe(at(0, 0, 16).getTime());
  });

  it('an ISO instant is taken as is', () => {
    expect(parseDeadline('2026-01-15T12:00:00Z', NOW)).toBe(Date.UTC(2026, 0, 15, 12));
    expect(parseDeadline('2026-01-15T12:00:00+02:00', NOW)).toBe(Date.UTC(2026, 0, 15, 10));
  });

  it.each(['', 'soon', '10x', '1h30', 'h', '-5m', '25:00', '12:60', '6:5', '2026-13-45T00:00:00Z', '5 m', 'tomorrow 06:30'])(
    'garbage %j is a UsageError naming the flag and the value',
    (text) => {
      let thrown: unknown;
      try {
        parseDeadline(text, NOW);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).toMatch(/^Expected `--deadline` to be a duration/);
      expect((thrown as Error).message).toContain(`got \`${text}\``);
    },
  );
});
