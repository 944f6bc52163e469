import { describe, expect, it } from 'vitest';
import {
  bucketSize,
  mergeIntervals,
  quantile,
  SPEND_POINTS,
  thin,
  TimelineBuilder,
  BURST_GAP_MS,
} from '../../src/report/timeline.js';

const T = 1_700_000_000_000;
type E = { itemId: string; at: number; event: string; to: string; detail?: unknown };
const build = (events: E[]) => {
  const b = new TimelineBuilder();
  for (const e of [...events].sort((x, y) => x.at - y.at)) b.add({ detail: null, ...e });
  return b.finish();
};

describe('timeline from the event log', () => {
  it('times each item by its last attempt: submission, acceptance, success, the end', () => {
    const t = build([
      { itemId: 'v', at: T, event: 'submit', to: 'submitting' },
      { itemId: 'v', at: T + 10, event: 'retry', to: 'pending', detail: { status: 429, delayMs: 2000 } },
      { itemId: 'v', at: T + 2010, event: 'submit', to: 'submitting' },
      { itemId: 'v', at: T + 2050, event: 'accept', to: 'submitted' },
      { itemId: 'v', at: T + 2100, event: 'progress', to: 'running' },
      { itemId: 'v', at: T + 9010, event: 'finish', to: 'succeeded', detail: { actualUsd: 0.5 } },
      { itemId: 'v', at: T + 9500, event: 'store', to: 'downloaded' },
      { itemId: 'c', at: T + 100, event: 'submit', to: 'submitting' },
      { itemId: 'c', at: T + 400, event: 'complete', to: 'succeeded', detail: { actualUsd: 0.01 } },
      { itemId: 'c', at: T + 450, event: 'store', to: 'downloaded' },
    ]);
    expect(t.items.get('v')).toEqual({
      submittedAt: T + 2010,
      acceptedAt: T + 2050,
      succeededAt: T + 9010,
      finishedAt: T + 9500,
    });
    expect(t.items.get('c')).toEqual({ submittedAt: T + 100, succeededAt: T + 400, finishedAt: T + 450 });
    expect(t.startedAt).toBe(T);
    expect(t.endedAt).toBe(T + 9500);
    expect(t.videoDurationsMs).toEqual([7000]);
    expect(t.spend).toEqual([
      { at: T + 400, usd: 0.01 },
      { at: T + 9010, usd: 0.51 },
    ]);
    expect(t.pauses).toEqual([{ start: T + 10, end: T + 2010, count: 1 }]);
    expect(t.bursts).toEqual([]);
  });

  it('a row already ended is not done again by a later event that leaves it ended (unreserve); a detach reopens it', () => {
    const t = build([
      { itemId: 'a', at: T, event: 'submit', to: 'submitting' },
      { itemId: 'a', at: T + 5, event: 'lose', to: 'uncertain' },
      { itemId: 'a', at: T + 10, event: 'abandon', to: 'failed' },
      { itemId: 'a', at: T + 20, event: 'unreserve', to: 'failed' },
    ]);
    expect(t.items.get('a')!.finishedAt).toBe(T + 10);
    expect(t.buckets.reduce((n, b) => n + b.done, 0)).toBe(1);
    const reopened = build([
      { itemId: 'a', at: T, event: 'attach', to: 'submitted' },
      { itemId: 'a', at: T + 5, event: 'finish', to: 'succeeded' },
      { itemId: 'a', at: T + 6, event: 'store', to: 'downloaded' },
      { itemId: 'a', at: T + 9, event: 'detach', to: 'uncertain' },
    ]);
    expect(reopened.items.get('a')!.finishedAt).toBeUndefined();
  });

  it('a requeued row loses its earlier end; a fail is an end without success', () => {
    const t = build([
      { itemId: 'a', at: T, event: 'submit', to: 'submitting' },
      { itemId: 'a', at: T + 5, event: 'reject', to: 'rejected', detail: { status: 400 } },
      { itemId: 'a', at: T + 50, event: 'requeue', to: 'pending' },
    ]);
    expect(t.items.get('a')).toEqual({ submittedAt: T });
    expect(t.buckets.reduce((n, b) => n + b.done, 0)).toBe(1);
  });

  it('buckets rows sent and done per round interval; 5xx close together are one burst', () => {
    const events: E[] = [];
    for (let i = 0; i < 120; i++) {
      events.push({ itemId: `r${i}`, at: T + i * 1000, event: 'submit', to: 'submitting' });
      events.push({
        itemId: `r${i}`,
        at: T + i * 1000 + 500,
        event: i % 10 === 0 ? 'retry' : 'complete',
        to: i % 10 === 0 ? 'pending' : 'succeeded',
        detail: i % 10 === 0 ? { status: 503 } : { actualUsd: 0.001 },
      });
    }
    const t = build(events);
    expect(t.bucketMs).toBe(bucketSize(119_500));
    expect(t.buckets.reduce((n, b) => n + b.submitted, 0)).toBe(120);
    expect(t.buckets[0]!.start).toBeLessThanOrEqual(T);
    expect(t.spend).toHaveLength(108);
    expect(t.spend.at(-1)!.usd).toBeCloseTo(0.108, 10);
    // 5xx every 10 s: farther apart than the burst gap, so each stands alone.
    expect(t.bursts).toHaveLength(12);
    expect(BURST_GAP_MS).toBeLessThan(10_000);
  });

  it('a long spend series is thinned to about SPEND_POINTS, keeping its shape and its exact end', () => {
    const events: E[] = [];
    for (let i = 0; i < 3000; i++) {
      events.push({ itemId: `r${i}`, at: T + i * 10, event: 'submit', to: 'submitting' });
      events.push({
        itemId: `r${i}`,
        at: T + i * 10 + 5,
        event: 'complete',
        to: 'succeeded',
        detail: { actualUsd: 0.001 },
      });
    }
    const t = build(events);
    expect(t.spend.length).toBeLessThanOrEqual(SPEND_POINTS + 1);
    expect(t.spend.length).toBeGreaterThan(SPEND_POINTS / 2);
    expect(t.spend.at(-1)!.usd).toBeCloseTo(3, 9);
    expect(t.spend.at(-1)!.at).toBe(T + 29_995);
    expect(t.spend.every((p, i) => i === 0 || p.usd > t.spend[i - 1]!.usd)).toBe(true);
    expect(thin([{ at: 1, usd: 1 }], 0)).toEqual([{ at: 1, usd: 1 }]);
  });

  it('nothing sent: no start, no buckets', () => {
    const t = build([{ itemId: 'x', at: T, event: 'abandon', to: 'failed' }]);
    expect(t.startedAt).toBeUndefined();
    expect(t.buckets).toEqual([]);
  });

  it('bucketSize picks a round interval; mergeIntervals joins within the gap; quantile by nearest rank', () => {
    expect(bucketSize(30_000)).toBe(1000);
    expect(bucketSize(3_600_000)).toBe(60_000);
    expect(bucketSize(0)).toBe(1000);
    expect(
      mergeIntervals(
        [
          { start: 10, end: 20, count: 1 },
          { start: 0, end: 5, count: 1 },
          { start: 22, end: 30, count: 2 },
        ],
        2,
      ),
    ).toEqual([
      { start: 0, end: 5, count: 1 },
      { start: 10, end: 30, count: 3 },
    ]);
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([5, 1, 3, 2, 4], 1)).toBe(5);
    expect(quantile([], 0.5)).toBeUndefined();
  });
});
