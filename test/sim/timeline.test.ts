import { expect, test } from 'vitest';
import { phaseAt } from '../../src/sim/timeline.js';

test.each([
  [0, 'NOT_START', 0],
  [0.799, 'NOT_START', 0],
  [0.8, 'QUEUED', 0],
  [1.999, 'QUEUED', 0],
  [2, 'IN_PROGRESS', 1],
  [5, 'IN_PROGRESS', 50],
  [7.999, 'IN_PROGRESS', 98],
  [8, 'DONE', 100],
  [80, 'DONE', 100],
] as const)('an 8 s task at %f s is %s at %i%%', (seconds, phase, progress) => {
  expect(phaseAt(seconds * 1000, 8000)).toEqual({ phase, progress });
});

test('progress never falls while a task runs', () => {
  let last = 0;
  for (let ms = 2000; ms < 8000; ms += 37) {
    const { progress } = phaseAt(ms, 8000);
    expect(progress).toBeGreaterThanOrEqual(last);
    last = progress;
  }
});

test('a zero-length task is done at once', () => {
  expect(phaseAt(0, 0).phase).toBe('DONE');
});
