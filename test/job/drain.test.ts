// `--drain`: a duration, 15 minutes unless said, from the command line or a job file; bad text is refused.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDrain } from '../../src/job/deadline.js';
import { resolveJob } from '../../src/job/job.js';
import { parseOptions, UsageError } from '../../src/job/options.js';
import { RUN_OPTIONS } from '../../src/job/run-options.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir('gbatch-drain-');
const NOW = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));
const cli = (...argv: string[]) => parseOptions(RUN_OPTIONS, argv).options;

describe('--drain', () => {
  it('reads durations and plain seconds; 0 means none', () => {
    expect(parseDrain('15m')).toBe(900_000);
    expect(parseDrain('90s')).toBe(90_000);
    expect(parseDrain('1h30m')).toBe(5_400_000);
    expect(parseDrain('2.5')).toBe(2_500);
    expect(parseDrain('0')).toBe(0);
  });

  it('refuses what is not a duration, or more than a day', () => {
    for (const bad of ['soon', '-5m', '06:30', '2d', '']) {
      expect(() => parseDrain(bad), bad).toThrow(UsageError);
    }
    expect(() => parseDrain('soon')).toThrow(/Expected `--drain` to be a duration up to a day .* got `soon`/);
  });

  it('is 15 minutes by default, the flag or the job file overriding it', () => {
    expect(resolveJob('rows.csv', cli(), NOW).drainMs).toBe(15 * 60_000);
    expect(resolveJob('rows.csv', cli('--drain', '0'), NOW).drainMs).toBe(0);
    const dir = join(tmp.dir(), 'jobs');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'nightly.json');
    writeFileSync(file, JSON.stringify({ manifest: 'a.csv', options: { drain: '45m' } }));
    expect(resolveJob(file, cli(), NOW).drainMs).toBe(45 * 60_000);
    expect(() => resolveJob('rows.csv', cli('--drain', 'later'), NOW)).toThrow(UsageError);
  });
});
