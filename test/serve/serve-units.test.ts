// The server's pure parts: Range headers, completion windows and client tokens.
import { describe, expect, it } from 'vitest';
import { byteRange } from '../../src/io/byte-range.js';
import { windowSeconds, type Batch, type BatchFields } from '../../src/serve/batch-record.js';
import { FINAL_METRICS_RETENTION_S, metricsRetained } from '../../src/serve/metrics-retention.js';
import { clientTokens } from '../../src/serve/tokens.js';

describe('byteRange', () => {
  it.each([
    [undefined, 100, undefined],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=50-500', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=9-3', 100, 'unsatisfiable'],
    ['bytes=0-1,5-6', 100, undefined],
    ['items=0-1', 100, undefined],
  ] as const)('%s of %i bytes', (header, length, expected) => {
    expect(byteRange(header, length)).toEqual(expected);
  });
});

describe('windowSeconds', () => {
  it.each([
    ['24h', 86_400],
    ['2h', 7_200],
    ['30m', 1_800],
    ['0h', undefined],
    ['1d', undefined],
    ['24', undefined],
    [24, undefined],
    ['9000h', undefined],
  ] as const)('%s', (text, expected) => {
    expect(windowSeconds(text)).toBe(expected);
  });
});

describe('clientTokens', () => {
  it('names each token by a hash and knows no other', () => {
    const tokens = clientTokens(['alpha', 'beta']);
    const alpha = tokens.ownerOf('alpha');
    expect(alpha).toMatch(/^[0-9a-f]{32}$/);
    expect(alpha).not.toContain('alpha');
    expect(tokens.ownerOf('beta')).not.toBe(alpha);
    expect(tokens.ownerOf('alph')).toBeUndefined();
    expect(tokens.ownerOf('')).toBeUndefined();
  });
});

describe('metricsRetained', () => {
  const ENDED = 1_800_000_000;
  const batch = (status: Batch['status'], stamps: Partial<BatchFields>): Batch => ({
    id: 'batch_1',
    owner: 'o',
    status,
    createdAt: ENDED - 100,
    fields: { completed_at: null, failed_at: null, expired_at: null, cancelled_at: null, ...stamps } as BatchFields,
  });
  it('keeps a live batch whatever the time, a final one for an hour after it ended', () => {
    expect(FINAL_METRICS_RETENTION_S).toBe(3600);
    expect(metricsRetained(batch('in_progress', {}), Number.MAX_SAFE_INTEGER)).toBe(true);
    for (const [status, stamp] of [
      ['completed', 'completed_at'],
      ['failed', 'failed_at'],
      ['expired', 'expired_at'],
      ['cancelled', 'cancelled_at'],
    ] as const) {
      const ended = batch(status, { [stamp]: ENDED });
      expect(metricsRetained(ended, (ENDED + 3599) * 1000), status).toBe(true);
      expect(metricsRetained(ended, (ENDED + 3600) * 1000), status).toBe(false);
      expect(metricsRetained(ended, (ENDED + 10) * 1000, 10), status).toBe(false);
    }
  });
});
