import { expect, test } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { MAX_LINK_SECONDS, parseLinkDuration } from '../../src/core/link-duration.js';

test("a duration in seconds, minutes, hours or days, up to S3's 7 days", () => {
  expect(parseLinkDuration('90')).toBe(90);
  expect(parseLinkDuration('90s')).toBe(90);
  expect(parseLinkDuration('15m')).toBe(900);
  expect(parseLinkDuration('12h')).toBe(43_200);
  expect(parseLinkDuration('7d')).toBe(MAX_LINK_SECONDS);
});

test('anything else is a ConfigError naming the flag', () => {
  for (const text of ['', '0', '8d', '604801', '1w', '-5m', '1.5h', '15 m'])
    expect(() => parseLinkDuration(text), text).toThrow(ConfigError);
  expect(() => parseLinkDuration('soon')).toThrow(/^--presign-links: expected a duration/);
});
