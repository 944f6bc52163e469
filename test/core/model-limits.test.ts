// --model-limit's parser: every accepted shape, and each error naming the entry and the reason.
import { describe, expect, test } from 'vitest';
import { parseModelLimits } from '../../src/core/model-limits.js';
import { parseOptions } from '../../src/job/options.js';
import { RUN_OPTIONS } from '../../src/job/run-options.js';

function limits(...values: string[]) {
  const parsed = parseModelLimits(values);
  if (typeof parsed === 'string') throw new Error(parsed);
  return Object.fromEntries(parsed);
}

describe('parseModelLimits', () => {
  test('concurrency, rate, both with +, and repeated entries merged per model', () => {
    expect(limits('video-pro=4,chat-small=200rpm')).toEqual({
      'video-pro': { concurrency: 4 },
      'chat-small': { rpm: 200 },
    });
    expect(limits('video-pro=4+30rpm')).toEqual({ 'video-pro': { concurrency: 4, rpm: 30 } });
    expect(limits('video-pro=4', ' video-pro = 30RPM ')).toEqual({ 'video-pro': { concurrency: 4, rpm: 30 } });
  });

  test.each([
    [
      'video-pro=4,',
      'Expected `--model-limit` to be MODEL=N (in flight), MODEL=Nrpm (per minute) or MODEL=N+Nrpm entries separated by commas, got an empty entry in `video-pro=4,`',
    ],
    [
      'video-pro',
      'Expected `--model-limit` entry to be MODEL=N (in flight), MODEL=Nrpm (per minute) or MODEL=N+Nrpm, got `video-pro`',
    ],
    [
      '=4',
      'Expected `--model-limit` entry to be MODEL=N (in flight), MODEL=Nrpm (per minute) or MODEL=N+Nrpm, got `=4`',
    ],
    [
      'video-pro=0',
      'Expected `--model-limit` concurrency to be an integer from 1 to 10000 (or Nrpm for a rate) for `video-pro`, got `0` in `video-pro=0`',
    ],
    [
      'video-pro=2.5',
      'Expected `--model-limit` concurrency to be an integer from 1 to 10000 (or Nrpm for a rate) for `video-pro`, got `2.5` in `video-pro=2.5`',
    ],
    [
      'video-pro=fast',
      'Expected `--model-limit` concurrency to be an integer from 1 to 10000 (or Nrpm for a rate) for `video-pro`, got `fast` in `video-pro=fast`',
    ],
    [
      'video-pro=',
      'Expected `--model-limit` concurrency to be an integer from 1 to 10000 (or Nrpm for a rate) for `video-pro`, got `` in `video-pro=`',
    ],
    [
      'chat-small=0rpm',
      'Expected `--model-limit` rpm to be an integer from 1 and up for `chat-small`, got `0rpm` in `chat-small=0rpm`',
    ],
    ['video-pro=4+5', 'Expected `--model-limit` to give the concurrency of `video-pro` once, got `4` and `5`'],
    [
      'video-pro=4,video-pro=30rpm+31rpm',
      'Expected `--model-limit` to give the rpm of `video-pro` once, got `30` and `31`',
    ],
  ])('%s is refused', (value, message) => {
    expect(parseModelLimits([value])).toBe(message);
  });

  test('the option table refuses a bad entry as a usage error, before anything runs', () => {
    expect(() => parseOptions(RUN_OPTIONS, ['--model-limit', 'video-pro=0'])).toThrow(
      /^Expected `--model-limit` concurrency .* got `0`/,
    );
    expect(
      parseOptions(RUN_OPTIONS, ['--model-limit', 'video-pro=2', '--model-limit', 'chat-small=9rpm']).options[
        'model-limit'
      ],
    ).toEqual(['video-pro=2', 'chat-small=9rpm']);
  });
});
