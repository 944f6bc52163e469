// The tests' Prometheus text reader is strict: a reader that let malformed lines through would let a
// broken /metrics pass the end-to-end tests.
import { expect, test } from 'vitest';
import { parseExposition } from '../helpers/prometheus-text.js';

const GOOD = [
  '# HELP gbatch_rows Rows.',
  '# TYPE gbatch_rows gauge',
  'gbatch_rows{state="pending"} 3',
  'gbatch_rows{state="a \\"quoted\\" \\\\ value\\n"} 1.5e3',
  '# TYPE h histogram',
  'h_bucket{le="+Inf"} 2',
  'h_sum 0.5',
  'h_count 2',
  '',
].join('\n');

test('reads samples, labels with escapes, histograms', () => {
  const m = parseExposition(GOOD);
  expect(m.value('gbatch_rows', { state: 'pending' })).toBe(3);
  expect(m.value('gbatch_rows', { state: 'a "quoted" \\ value\n' })).toBe(1500);
  expect(m.value('h_bucket', { le: '+Inf' })).toBe(2);
  expect(m.sum('gbatch_rows')).toBe(1503);
});

test.each([
  ['a sample of no declared family', 'other 1\n'],
  ['a value that is no number', '# TYPE x gauge\nx one\n'],
  ['an unquoted label', '# TYPE x gauge\nx{a=b} 1\n'],
  ['a label twice', '# TYPE x gauge\nx{a="1",a="2"} 1\n'],
  ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n'],
  ['a TYPE of no kind', '# TYPE x meter\n'],
  ['a second TYPE', '# TYPE x gauge\n# TYPE x gauge\n'],
  ['a histogram bucket without le', '# TYPE h histogram\nh_bucket 1\n'],
  ['no final newline', '# TYPE x gauge\nx 1'],
  ['a stray token', '# TYPE x gauge\nx 1 2 3\n'],
])('refuses %s', (_, text) => {
  expect(() => parseExposition(text)).toThrow();
});
