// The one rule for a row arriving under an id the journal holds: unchanged, replaced, or a conflict.
import { describe, expect, it } from 'vitest';
import { judgeAgainstPrior, replacementEvent } from '../../src/journal/ingest-rules.js';

const prior = (over: Partial<Parameters<typeof judgeAgainstPrior>[0]> = {}) => ({
  content_hash: 'old',
  state: 'pending',
  orphan: 2,
  reserved_usd: 0,
  actual_usd: null,
  ...over,
});

describe('judgeAgainstPrior', () => {
  it('an invalid row, and a row the operator sent again that waits unsent with nothing booked, take the new content', () => {
    expect(judgeAgainstPrior(prior(), 'old')).toBe('unchanged');
    expect(judgeAgainstPrior(prior({ state: 'invalid', orphan: 0 }), 'new')).toBe('replace');
    expect(judgeAgainstPrior(prior(), 'new')).toBe('replace');
    expect(judgeAgainstPrior(prior({ state: 'deferred', actual_usd: 0 }), 'new')).toBe('replace');
  });

  it('any other changed row is a conflict: listed or orphaned, sent, in flight, or with money booked', () => {
    expect(judgeAgainstPrior(prior({ orphan: 0 }), 'new')).toBe('conflict');
    expect(judgeAgainstPrior(prior({ orphan: 1 }), 'new')).toBe('conflict');
    for (const state of ['failed', 'rejected', 'cancelled', 'submitted', 'uncertain', 'downloaded'])
      expect(judgeAgainstPrior(prior({ state }), 'new')).toBe('conflict');
    expect(judgeAgainstPrior(prior({ reserved_usd: 0.4 }), 'new')).toBe('conflict');
    expect(judgeAgainstPrior(prior({ actual_usd: 0.2 }), 'new')).toBe('conflict');
    // A journal without listings (an older one, read-only): no row is adopted.
    expect(judgeAgainstPrior({ content_hash: 'old', state: 'pending' }, 'new')).toBe('conflict');
  });

  it("a replacement's event keeps the content it held; an invalid row's replacement has none", () => {
    const held = { ...prior(), source_file: 'm.jsonl', source_line: 3 };
    expect(replacementEvent('a', held, 'pending')).toEqual({
      itemId: 'a',
      event: 'replace',
      from: 'pending',
      to: 'pending',
      detail: '{"by":"manifest","previous":{"contentHash":"old","file":"m.jsonl","line":3}}',
    });
    expect(replacementEvent('a', { ...held, state: 'invalid' }, 'pending')).toBeUndefined();
  });
});
