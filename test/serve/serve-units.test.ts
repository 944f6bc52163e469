// The server's pure parts: one --concurrency shared fairly among batches, Range headers, completion windows,
// and client tokens.
import { describe, expect, it } from 'vitest';
import { FairSendSlots } from '../../src/pipeline/pacing/send-slots.js';
import { byteRange } from '../../src/serve/byte-range.js';
import { windowSeconds } from '../../src/serve/batch-record.js';
import { clientTokens } from '../../src/serve/tokens.js';

describe('FairSendSlots', () => {
  it('hands a freed slot to the batches in turn: a large queue does not starve a small one', async () => {
    const slots = new FairSendSlots(1);
    const order: string[] = [];
    const first = await slots.acquire('large');
    const waits = [
      ...['large', 'large', 'large'].map((owner, i) =>
        slots.acquire(owner).then((r) => ({ owner: `${owner}${i}`, r })),
      ),
      slots.acquire('small').then((r) => ({ owner: 'small', r })),
    ];
    let release = first;
    for (let i = 0; i < waits.length; i++) {
      release();
      const next = await Promise.race(
        waits.map((w, at) => w.then((v) => ({ ...v, at }))).filter((_, at) => !order.includes(String(at))),
      );
      order.push(String(next.at));
      release = next.r;
    }
    release();
    // The small batch, queued last, goes second: right after the large one's first.
    expect(order).toEqual(['0', '3', '1', '2']);
  });

  it('never has more than its size out, and a waiter whose run stops leaves the queue', async () => {
    const slots = new FairSendSlots(2);
    const a = await slots.acquire('x');
    await slots.acquire('y');
    const stop = new AbortController();
    const abandoned = slots.acquire('x', stop.signal);
    const waiting = slots.acquire('y');
    let granted = false;
    void waiting.then(() => (granted = true));
    stop.abort(new Error('stopped'));
    await expect(abandoned).rejects.toThrow('stopped');
    await Promise.resolve();
    expect(granted).toBe(false);
    a();
    await waiting;
    expect(granted).toBe(true);
  });
});

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
