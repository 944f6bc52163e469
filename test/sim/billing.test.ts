// Billing against numbers computed by hand from the spec's table (8.2) and token formula:
// reservation, settlement up and down, refund, 402, group ratio, and price snapshots (8.3).
//
// Spec 8.2 rates used here (USD per 1M tokens):     noref    ref
//   video-fast 480p/720p                            3.8088   2.2647
//   video-fast 1080p                                4.3235   2.5221
//   video-pro 4K                                    2.8676   1.7647
// Tokens: 720p 5 s = floor(1280*720*121/1024) = 108900; 1080p 5 s = 245025; 480p 5 s = 48437;
//         4k 10 s = floor(3840*2160*241/1024) = 1952100;
//         reserved for 720p 5 s + 1 reference video: frames 24*(5+5)+1 = 241 -> 216900.

import type { ManualClock } from '../../src/core/clock.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { KEY, simClock, poll, post, submit } from '../helpers/sim-http.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(
  balanceUsd: number,
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = simClock();
  sim = await startSimulator({ accounts: [{ key: KEY, balanceUsd }], taskSeconds: 10, clock, ...options });
  return { sim, clock };
}

const CLOSE = 9; // decimal places: well below a micro-dollar

describe('reservation at submission (spec 8.3.1)', () => {
  test('video-fast 720p 5 s, no reference: 108900 tokens x 3.8088 = 0.41477832 USD', async () => {
    const { sim } = await start(10);
    const { status, json } = await submit(sim.baseUrl, KEY, {
      model: 'video-fast',
      prompt: 'a',
      resolution: '720p',
      duration: 5,
    });
    expect(status).toBe(200);
    const [task] = sim.ledger.tasks;
    expect(task).toMatchObject({
      id: json.id,
      account: 'acct-1',
      requestedResolution: '720p',
      seconds: 5,
      hasReferenceVideo: false,
      groupRatioSnapshot: 1,
    });
    expect(task!.reservedUsd).toBeCloseTo(0.41477832, CLOSE);
    expect(task!.rateSnapshot).toEqual({ '480p': 3.8088, '720p': 3.8088, '1080p': 4.3235 });
    expect(sim.ledger.charges).toEqual([
      { at: expect.any(Number), account: 'acct-1', kind: 'reserve', taskId: json.id, usd: task!.reservedUsd },
    ]);
    expect(sim.account(KEY).balanceUsd).toBeCloseTo(10 - 0.41477832, CLOSE);
  });

  test('a reference video: the ref rate, and 5 s more of frames in the estimate', async () => {
    // frames 24 x (5 + 5) + 1 = 241 -> floor(1280*720*241/1024) = 216900 tokens x 2.2647 = 0.49121343
    const { sim } = await start(10);
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a', video_url: 'https://example.invalid/ref.mp4' });
    expect(sim.ledger.tasks[0]).toMatchObject({ hasReferenceVideo: true, referenceVideos: 1 });
    expect(sim.ledger.tasks[0]!.reservedUsd).toBeCloseTo(0.49121343, CLOSE);
  });

  test('an omitted resolution reserves as 720p; seconds alias and numeric strings count', async () => {
    // video-pro 4K 10 s: 1952100 tokens x 2.8676 = 5.59784196
    const { sim } = await start(10);
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    await submit(sim.baseUrl, KEY, { model: 'video-pro', prompt: 'b', resolution: '4K', seconds: '10' });
    expect(sim.ledger.tasks.map((t) => t.reservedUsd)).toEqual([
      expect.closeTo(0.41477832, CLOSE),
      expect.closeTo(5.59784196, CLOSE),
    ]);
  });
});

describe('settlement on SUCCESS (spec 8.3.3): only the difference moves', () => {
  test('same resolution, no noise: settles at the reservation (difference 0)', async () => {
    const { sim, clock } = await start(10);
    const { json } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    clock.tick(10_000);
    expect((await poll(sim.baseUrl, KEY, json.id)).json.data.data.usage.total_tokens).toBe(108900);
    const settle = sim.ledger.charges.find((c) => c.kind === 'settle')!;
    expect(settle.usd).toBeCloseTo(0, CLOSE);
    expect(sim.ledger.chargesTotal('acct-1')).toBeCloseTo(0.41477832, CLOSE);
  });

  test('up: asked 720p, delivered 1080p -> 245025 x 4.3235 = 1.0593655875, charged 0.6445872675 more', async () => {
    const { sim, clock } = await start(10, { faults: { finalResolution: '1080p' } });
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a', resolution: '720p' });
    clock.tick(10_000);
    const [task] = sim.ledger.tasks;
    expect(task).toMatchObject({ state: 'SUCCESS', finalResolution: '1080p', totalTokens: 245025 });
    expect(task!.chargedUsd).toBeCloseTo(1.0593655875, CLOSE);
    expect(sim.ledger.charges.find((c) => c.kind === 'settle')!.usd).toBeCloseTo(0.6445872675, CLOSE);
    expect(sim.account(KEY).balanceUsd).toBeCloseTo(10 - 1.0593655875, CLOSE);
  });

  test('down by resolution: asked 720p, delivered 480p -> 48437 x 3.8088 = 0.1844868456, refunds the rest', async () => {
    const { sim, clock } = await start(10, { faults: { finalResolution: '480p' } });
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    clock.tick(10_000);
    expect(sim.ledger.tasks[0]!.chargedUsd).toBeCloseTo(0.1844868456, CLOSE);
    expect(sim.ledger.charges.find((c) => c.kind === 'settle')!.usd).toBeCloseTo(0.1844868456 - 0.41477832, CLOSE);
  });

  test('down with a reference video: the estimate counted 5 s more; the actual does not', async () => {
    // reserved 0.49121343 (above); actual 108900 x 2.2647 = 0.24662583
    const { sim, clock } = await start(10);
    await submit(sim.baseUrl, KEY, {
      model: 'video-fast',
      prompt: 'a',
      videos: [{ url: 'r', role: 'reference_video' }],
    });
    clock.tick(10_000);
    const [task] = sim.ledger.tasks;
    expect(task!.totalTokens).toBe(108900);
    expect(task!.chargedUsd).toBeCloseTo(0.24662583, CLOSE);
    expect(sim.ledger.chargesTotal('acct-1')).toBeCloseTo(0.24662583, CLOSE);
  });

  test('down by token noise: fewer tokens than the formula, charged at the snapshot rate', async () => {
    const { sim, clock } = await start(10, { tokenNoise: 0.2 });
    for (let i = 0; i < 5; i++) await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: `n${i}` });
    clock.tick(10_000);
    const tokens = sim.ledger.tasks.map((t) => t.totalTokens!);
    for (const [i, t] of tokens.entries()) {
      expect(t).toBeLessThanOrEqual(108900);
      expect(t).toBeGreaterThanOrEqual(Math.floor(108900 * 0.8));
      expect(sim.ledger.tasks[i]!.chargedUsd).toBeCloseTo((t / 1e6) * 3.8088, CLOSE);
    }
    expect(new Set(tokens).size).toBeGreaterThan(1);
    const total = tokens.reduce((a, b) => a + b, 0);
    expect(sim.ledger.chargesTotal('acct-1')).toBeCloseTo((total / 1e6) * 3.8088, CLOSE);
  });

  test('settles exactly once, however often it is read', async () => {
    const { sim, clock } = await start(10);
    const { json } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    clock.tick(10_000);
    for (let i = 0; i < 3; i++) {
      await poll(sim.baseUrl, KEY, json.id);
      void sim.ledger.tasks;
      void sim.account(KEY);
    }
    clock.tick(100_000);
    await poll(sim.baseUrl, KEY, json.id);
    expect(sim.ledger.charges.map((c) => c.kind)).toEqual(['reserve', 'settle']);
  });
});

describe('FAILURE refunds the reservation (spec 8.3.4)', () => {
  test('the balance returns to where it was', async () => {
    const { sim, clock } = await start(10, { faults: { failRate: 1 } });
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    expect(sim.account(KEY).balanceUsd).toBeCloseTo(10 - 0.41477832, CLOSE);
    clock.tick(10_000);
    expect(sim.ledger.tasks[0]).toMatchObject({ state: 'FAILURE', chargedUsd: 0, totalTokens: null });
    expect(sim.ledger.charges.map((c) => [c.kind, c.usd])).toEqual([
      ['reserve', expect.closeTo(0.41477832, CLOSE)],
      ['refund', expect.closeTo(-0.41477832, CLOSE)],
    ]);
    expect(sim.account(KEY).balanceUsd).toBeCloseTo(10, CLOSE);
    expect(sim.ledger.chargesTotal('acct-1')).toBeCloseTo(0, CLOSE);
  });
});

describe('402 when the balance cannot cover the reservation', () => {
  test('0.41 USD < 0.41477832: refused and nothing kept; 0.42 is enough', async () => {
    const { sim } = await start(0.41);
    const refused = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    expect(refused.status).toBe(402);
    expect(refused.json.code).toBe('insufficient_quota');
    expect(sim.ledger.tasks).toEqual([]);
    expect(sim.ledger.charges).toEqual([]);
    expect(sim.ledger.submissionsByPrompt()).toEqual({});
    expect(sim.account(KEY).balanceUsd).toBe(0.41);
    await sim.close();

    const { sim: richer } = await start(0.42);
    expect((await submit(richer.baseUrl, KEY, { model: 'video-fast', prompt: 'a' })).status).toBe(200);
  });

  test('a refund makes room again: settlement happens before the balance is checked', async () => {
    const { sim, clock } = await start(0.5, { faults: { failRate: 1 } });
    expect((await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' })).status).toBe(200);
    expect((await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'b' })).status).toBe(402);
    clock.tick(10_000); // the first task fails: no poll needed to get the refund
    expect((await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'b' })).status).toBe(200);
  });
});

describe('group ratio', () => {
  test('1.5: 0.41477832 x 1.5 = 0.62216748 reserved and settled', async () => {
    const { sim, clock } = await start(10, { groupRatio: 1.5 });
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    expect(sim.ledger.tasks[0]).toMatchObject({
      groupRatioSnapshot: 1.5,
      reservedUsd: expect.closeTo(0.62216748, CLOSE),
    });
    clock.tick(10_000);
    expect(sim.ledger.tasks[0]!.chargedUsd).toBeCloseTo(0.62216748, CLOSE);
  });

  test('chat is charged at its per-million rates times the group ratio', async () => {
    const { sim } = await start(10, { groupRatio: 2 });
    const res = await post(sim.baseUrl, '/chat/completions', KEY, {
      model: 'chat-large',
      messages: [{ role: 'user', content: 'hello world!' }],
    });
    const { usage } = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(usage.prompt_tokens).toBe(3); // ceil(12 / 4)
    const expected = ((3 * 2.5 + usage.completion_tokens * 10) / 1e6) * 2;
    expect(sim.ledger.charges).toEqual([
      { at: expect.any(Number), account: 'acct-1', kind: 'chat', usd: expect.closeTo(expected, 15) },
    ]);
    expect(sim.account(KEY).balanceUsd).toBeCloseTo(10 - expected, 12);
  });
});

describe('the price snapshot (spec 8.3.2)', () => {
  test('a price or ratio change after submission does not reach the task in flight', async () => {
    const { sim, clock } = await start(10, { faults: { finalResolution: '1080p' } });
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'before' });
    sim.setPrice('video-fast', '720p', { ref: 10, noref: 10 });
    sim.setPrice('video-fast', '1080p', { ref: 20, noref: 20 });
    sim.setGroupRatio(2);
    clock.tick(10_000);
    // Settled with the snapshot: 245025 x 4.3235 x 1, not x 20 x 2.
    expect(sim.ledger.tasks[0]!.chargedUsd).toBeCloseTo(1.0593655875, CLOSE);

    // A task submitted after the change uses the new list: 108900 x 10 x 2 = 2.178 reserved.
    await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'after' });
    expect(sim.ledger.tasks[1]!.reservedUsd).toBeCloseTo(2.178, CLOSE);
    expect(sim.ledger.tasks[1]!.rateSnapshot['720p']).toBe(10);
  });
});

describe('the poll shows the money', () => {
  test('Shape A quota: reservation while running, settled charge after (500,000 = 1 USD)', async () => {
    const { sim, clock } = await start(10, { faults: { finalResolution: '1080p' } });
    const { json } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'a' });
    expect((await poll(sim.baseUrl, KEY, json.id)).json.data.quota).toBe(207389); // 0.41477832 x 500000
    clock.tick(10_000);
    expect((await poll(sim.baseUrl, KEY, json.id)).json.data.quota).toBe(529683); // 1.0593655875 x 500000
  });
});
