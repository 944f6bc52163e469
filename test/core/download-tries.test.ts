// The bound on a video's download: a few rounds per run, and a bound on its failed rounds in all, counted
// across runs, after which the row is given up (failed) instead of holding its job open.
import { expect, test } from 'vitest';
import {
  afterFailedDownload,
  MAX_DOWNLOAD_FAILURES,
  MAX_DOWNLOAD_ROUNDS,
  type FailedRound,
} from '../../src/core/download-tries.js';

const failed = (over: Partial<FailedRound>): FailedRound => ({
  failures: 1,
  round: 1,
  transient: true,
  stopping: false,
  ...over,
});

test('the bounds: 5 rounds per run, 10 failed rounds in all', () => {
  expect(MAX_DOWNLOAD_ROUNDS).toBe(5);
  expect(MAX_DOWNLOAD_FAILURES).toBe(10);
});

test('a transient failure is tried again in the run until its rounds are used, then left for a later run', () => {
  expect([1, 2, 3, 4, 5].map((round) => afterFailedDownload(failed({ round, failures: round })))).toEqual([
    'again',
    'again',
    'again',
    'again',
    'later',
  ]);
  // A definite refusal, or a run that is stopping, starts no further round now.
  expect(afterFailedDownload(failed({ transient: false }))).toBe('later');
  expect(afterFailedDownload(failed({ stopping: true }))).toBe('later');
});

test('the failed rounds of every run count: the tenth in all gives the row up, whatever round of this run it is', () => {
  // A second run's first round, after a first run's five.
  expect(afterFailedDownload(failed({ failures: 6, round: 1 }))).toBe('again');
  expect(afterFailedDownload(failed({ failures: 9, round: 4 }))).toBe('again');
  expect(afterFailedDownload(failed({ failures: 10, round: 5 }))).toBe('forfeit');
  // A definite refusal counts the same way: a run that tries once each time still ends.
  expect(afterFailedDownload(failed({ failures: 10, round: 1, transient: false }))).toBe('forfeit');
  expect(afterFailedDownload(failed({ failures: 11, round: 1, stopping: true }))).toBe('forfeit');
});
