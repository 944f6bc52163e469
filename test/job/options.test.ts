import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError, type OptionTable } from '../../src/job/options.js';
import { helpText } from '../../src/cli/help-text.js';
import { RUN_OPTIONS } from '../../src/job/run-options.js';

const TABLE = {
  count: { type: 'number', integer: true, min: 1, max: 10, help: 'how many' },
  ratio: { type: 'number', min: 0, help: 'a ratio' },
  cap: { type: 'number', max: 5, help: 'a cap' },
  free: { type: 'number', help: 'any number' },
  workers: { type: 'number', integer: true, default: 8, help: 'workers' },
  mode: { type: 'string', choices: ['fast', 'safe'], default: 'safe', help: 'the mode' },
  tag: { type: 'string', multiple: true, help: 'tags' },
  color: { type: 'string', multiple: true, choices: ['red', 'blue'], help: 'colors' },
  name: { type: 'string', help: 'a name' },
  verbose: { type: 'boolean', short: 'v', help: 'chatty' },
  deadline: { type: 'duration', help: 'when to stop' },
} as const satisfies OptionTable;

function usageMessage(argv: string[]): string {
  try {
    parseOptions(TABLE, argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe('GBATCH_USAGE');
    return (err as Error).message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
}

describe('parseOptions', () => {
  it('gives typed values and defaults, and keeps positionals', () => {
    const { options, positionals } = parseOptions(TABLE, [
      'jobs/a.json',
      '--count',
      '3',
      '--ratio=0.25',
      '-v',
      '--name',
      'x',
      'extra',
    ]);
    expect(options).toEqual({
      count: 3,
      ratio: 0.25,
      cap: undefined,
      free: undefined,
      workers: 8,
      mode: 'safe',
      tag: [],
      color: [],
      name: 'x',
      verbose: true,
      deadline: undefined,
    });
    expect(positionals).toEqual(['jobs/a.json', 'extra']);
    expect(parseOptions(TABLE, []).options.verbose).toBe(false);
  });

  it('accepts bounds inclusively and fractional numbers where allowed', () => {
    expect(parseOptions(TABLE, ['--count', '1']).options.count).toBe(1);
    expect(parseOptions(TABLE, ['--count', '10']).options.count).toBe(10);
    expect(parseOptions(TABLE, ['--ratio', '0']).options.ratio).toBe(0);
    expect(parseOptions(TABLE, ['--cap', '5']).options.cap).toBe(5);
    expect(parseOptions(TABLE, ['--free=-2.5']).options.free).toBe(-2.5);
    expect(parseOptions(TABLE, ['--free', ' 7 ']).options.free).toBe(7);
  });

  it.each([
    [['--count', '0'], 'Expected `--count` to be an integer from 1 to 10, got `0`'],
    [['--count', '11'], 'Expected `--count` to be an integer from 1 to 10, got `11`'],
    [['--count', '2.5'], 'Expected `--count` to be an integer from 1 to 10, got `2.5`'],
    [['--count', 'many'], 'Expected `--count` to be an integer from 1 to 10, got `many`'],
    [['--ratio=-1'], 'Expected `--ratio` to be a number from 0 and up, got `-1`'],
    [['--cap', '6'], 'Expected `--cap` to be a number up to 5, got `6`'],
    [['--free', ''], 'Expected `--free` to be a number, got ``'],
    [['--free', 'Infinity'], 'Expected `--free` to be a number, got `Infinity`'],
    [['--free', 'NaN'], 'Expected `--free` to be a number, got `NaN`'],
    [['--workers', '1.5'], 'Expected `--workers` to be an integer, got `1.5`'],
    [['--mode', 'turbo'], 'Expected `--mode` to be one of fast, safe, got `turbo`'],
    [['--color', 'red', '--color', 'green'], 'Expected `--color` to be one of red, blue, got `green`'],
  ])('%j -> %s', (argv, message) => {
    expect(usageMessage(argv)).toBe(message);
  });

  it("refuses an unknown flag, a missing value and a value on a boolean, as UsageError without Node's error prefix", () => {
    const unknown = usageMessage(['--bogus']);
    expect(unknown).toContain('--bogus');
    expect(unknown).not.toMatch(/TypeError|ERR_PARSE_ARGS/);
    expect(usageMessage(['--count'])).toContain('--count');
    expect(usageMessage(['--verbose=yes'])).toContain('--verbose');
  });

  it('collects repeated values of a multiple option', () => {
    const { options } = parseOptions(TABLE, ['--tag', 'a', '--tag', 'b', '--color', 'blue', '--color', 'red']);
    expect(options.tag).toEqual(['a', 'b']);
    expect(options.color).toEqual(['blue', 'red']);
    // A single-valued option keeps the last one given.
    expect(parseOptions(TABLE, ['--name', 'a', '--name', 'b']).options.name).toBe('b');
  });

  it('passes a duration through as text for the caller to resolve', () => {
    expect(parseOptions(TABLE, ['--deadline', '06:30']).options.deadline).toBe('06:30');
  });

  it('helpText lists every flag with its help and default', () => {
    const text = helpText('demo', '<thing>', TABLE);
    expect(text.split('\n')[0]).toBe('Usage: gbatch demo <thing>');
    for (const name of Object.keys(TABLE)) expect(text).toContain(`--${name}`);
    expect(text).toContain('-v, --verbose');
    expect(text).toMatch(/--workers <value>\s+workers \(default: 8\)/);
    expect(text).toMatch(/--mode <value>\s+the mode \(default: safe\)/);
    expect(text).not.toMatch(/--verbose <value>/);
  });

  it('the run options table speaks the same language', () => {
    expect(() => parseOptions(RUN_OPTIONS, ['--concurrency', '0'])).toThrow(
      'Expected `--concurrency` to be an integer from 1 to 10000, got `0`',
    );
    expect(() => parseOptions(RUN_OPTIONS, ['--poll-interval', '0'])).toThrow(
      'Expected `--poll-interval` to be a number from 0.01 to 3600, got `0`',
    );
    expect(() => parseOptions(RUN_OPTIONS, ['--journal-sync', 'sometimes'])).toThrow(
      'Expected `--journal-sync` to be one of full, off, got `sometimes`',
    );
    expect(() => parseOptions(RUN_OPTIONS, ['--api-key', 'sk-x'])).toThrow(UsageError);
    const { options } = parseOptions(RUN_OPTIONS, ['--budget', '12.5', '--no-wait', '--poll-interval', '0.5']);
    expect(options).toMatchObject({ budget: 12.5, 'no-wait': true, 'poll-interval': 0.5, concurrency: undefined });
  });
});
