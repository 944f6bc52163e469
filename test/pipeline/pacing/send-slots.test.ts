// One --concurrency shared by several runs of a process (`gbatch serve`'s batches), each in turn.
import { describe, expect, it } from 'vitest';
import { FairSendSlots } from '../../../src/pipeline/pacing/send-slots.js';

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
