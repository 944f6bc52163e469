// The per-model gate and the rows waiting aside, on a ManualClock: a model at its limit holds its
// own rows only; a rate lets a row go when the window has room again.
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { parseModelLimits, type ModelLimits } from '../../../src/core/model-limits.js';
import type { Item } from '../../../src/journal/index.js';
import { ModelGate } from '../../../src/pipeline/lanes/model-gate.js';
import { ModelLanes } from '../../../src/pipeline/lanes/model-lanes.js';

function limitsOf(text: string): ModelLimits {
  const parsed = parseModelLimits([text]);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('ModelGate', () => {
  test('concurrency: a third row of a model waits until one of its two ends; other models never wait', () => {
    const gate = new ModelGate(limitsOf('video-pro=2'), new ManualClock());
    const first = gate.start('video-pro');
    gate.start('video-pro');
    expect(gate.waitMs('video-pro')).toBe(Infinity);
    expect(gate.limits('chat-small')).toBe(false);
    expect(gate.waitMs('chat-small')).toBe(0);
    first();
    first(); // a second release of the same row frees nothing more
    expect(gate.waitMs('video-pro')).toBe(0);
    gate.start('video-pro');
    expect(gate.waitMs('video-pro')).toBe(Infinity);
  });

  test('rpm: no minute holds more starts than the rate, paced about a second apart', async () => {
    const clock = new ManualClock(1_000_000);
    const gate = new ModelGate(limitsOf('chat-small=120rpm'), clock);
    // 120/min: windows of 1 s holding 2 starts.
    gate.start('chat-small')();
    gate.start('chat-small')();
    expect(gate.waitMs('chat-small')).toBe(1000);
    await clock.advance(999);
    expect(gate.waitMs('chat-small')).toBe(1);
    await clock.advance(1);
    expect(gate.waitMs('chat-small')).toBe(0);
  });
});

function row(id: string, model: string, seq: number): Item {
  return { id, model, seq } as unknown as Item;
}

describe('ModelLanes', () => {
  test('rows of a model at its limit wait aside in order while other rows pass at once', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const sent: string[] = [];
    const releases = new Map<string, () => void>();
    const lanes = new ModelLanes(
      new ModelGate(limitsOf('video-pro=2'), clock),
      clock,
      async (item, release) => {
        sent.push(item.id);
        releases.set(item.id, release);
      },
      stop.signal,
    );
    lanes.offer(row('v1', 'video-pro', 1));
    lanes.offer(row('v2', 'video-pro', 2));
    lanes.offer(row('v3', 'video-pro', 3));
    lanes.offer(row('v4', 'video-pro', 4));
    expect(sent).toEqual(['v1', 'v2']);
    releases.get('v2')!();
    expect(sent).toEqual(['v1', 'v2', 'v3']);
    releases.get('v1')!();
    releases.get('v3')!();
    expect(sent).toEqual(['v1', 'v2', 'v3', 'v4']);
    await lanes.drained();
  });

  test('a rate wakes the waiting row when the window has room; a stop lets the rest go unsent', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const sent: string[] = [];
    const lanes = new ModelLanes(
      new ModelGate(limitsOf('chat-small=60rpm'), clock),
      clock,
      async (item, release) => {
        sent.push(item.id);
        release();
      },
      stop.signal,
    );
    for (const id of ['c1', 'c2', 'c3']) lanes.offer(row(id, 'chat-small', 0));
    expect(sent).toEqual(['c1']);
    await clock.advance(999);
    expect(sent).toEqual(['c1']);
    await clock.advance(1);
    expect(sent).toEqual(['c1', 'c2']);
    stop.abort();
    await lanes.drained();
    await clock.advance(5000);
    expect(sent).toEqual(['c1', 'c2']);
  });

  test('room() holds the claim loop only once MAX_WAITING rows wait aside', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    let release: (() => void) | undefined;
    const lanes = new ModelLanes(
      new ModelGate(limitsOf('video-pro=1'), clock),
      clock,
      async (_item, r) => {
        release = r;
      },
      stop.signal,
    );
    for (let i = 0; i <= 256; i++) lanes.offer(row(`v${i}`, 'video-pro', i));
    let roomy = false;
    const waiting = lanes.room().then(() => {
      roomy = true;
    });
    await Promise.resolve();
    expect(roomy).toBe(false);
    release!();
    await waiting;
    expect(roomy).toBe(true);
    stop.abort();
    await lanes.drained();
  });
});
