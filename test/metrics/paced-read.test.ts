// A paced read: fresh while reads are cheap, reused for `ratio` times its duration when dear, shared by
// concurrent callers, and fresh again after expire(). The clock is the test's.
import { expect, test } from 'vitest';
import { DEAR_READ_MS, pacedRead } from '../../src/metrics/paced-read.js';

function counter(costMs: number, clock: { now: number }) {
  let reads = 0;
  return {
    reads: () => reads,
    load: async () => {
      reads++;
      clock.now += costMs;
      return reads;
    },
  };
}

test('a dear read is reused until ratio times its duration has passed', async () => {
  const clock = { now: 0 };
  const source = counter(DEAR_READ_MS, clock);
  const paced = pacedRead(source.load, { ratio: 10, now: () => clock.now });
  expect(await paced.read()).toBe(1);
  clock.now += DEAR_READ_MS * 10 - 1;
  expect(await paced.read()).toBe(1);
  clock.now += 1;
  expect(await paced.read()).toBe(2);
});

test('a cheaper read is fresh every time', async () => {
  const clock = { now: 0 };
  const source = counter(DEAR_READ_MS - 1, clock);
  const paced = pacedRead(source.load, { ratio: 20, now: () => clock.now });
  expect([await paced.read(), await paced.read(), await paced.read()]).toEqual([1, 2, 3]);
});

test('concurrent callers share one read; expire() makes the next fresh; a failed read is not kept', async () => {
  const clock = { now: 0 };
  const source = counter(DEAR_READ_MS, clock);
  const paced = pacedRead(source.load, { ratio: 10, now: () => clock.now });
  expect(await Promise.all([paced.read(), paced.read(), paced.read()])).toEqual([1, 1, 1]);
  paced.expire();
  expect(await paced.read()).toBe(2);
  let fail = true;
  const flaky = pacedRead(
    async () => {
      if (fail) throw new Error('busy');
      return 'ok';
    },
    { now: () => clock.now },
  );
  await expect(flaky.read()).rejects.toThrow('busy');
  fail = false;
  expect(await flaky.read()).toBe('ok');
});
