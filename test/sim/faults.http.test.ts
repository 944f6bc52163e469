// Fault injection over real HTTP: lost answers after the work was done, truncated downloads,
// intermediary pages, latency, failures and final resolutions, all from the one seeded PRNG.

import type { ManualClock } from '../../src/core/clock.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { get, KEY, simClock, poll, post, rawGet, rawPost, submit } from '../helpers/sim-http.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions = {}): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = simClock();
  sim = await startSimulator({ accounts: [{ key: KEY, balanceUsd: 100 }], taskSeconds: 10, clock, ...options });
  return { sim, clock };
}

describe('accept-then-drop', () => {
  test('video submit: no answer on the socket, yet the task exists and is reserved', async () => {
    const { sim } = await start({ faults: { acceptThenDropRate: 1 } });
    const outcome = await rawPost(`${sim.baseUrl}/video/generations`, KEY, {
      model: 'video-fast',
      prompt: 'lost answer',
    });
    expect(outcome).toBe('dropped');
    const [task] = sim.ledger.tasks;
    expect(task).toMatchObject({
      prompt: 'lost answer',
      state: 'NOT_START',
      reservedUsd: expect.closeTo(0.41477832, 10),
    });
    expect(sim.ledger.submissionsByPrompt()).toEqual({ 'lost answer': 1 });
    expect(sim.ledger.requests.at(-1)).toMatchObject({
      path: '/v1/video/generations',
      status: null,
      outcome: 'dropped',
    });
    // The client that recovers finds the task by polling its id (known from the ledger here).
    sim.faults.acceptThenDropRate = 0;
    expect((await poll(sim.baseUrl, KEY, task!.id)).status).toBe(200);
  });

  test('chat: charged, then dropped; fetch sees a network error', async () => {
    const { sim } = await start({ faults: { acceptThenDropRate: 1 } });
    const err = await post(sim.baseUrl, '/chat/completions', KEY, {
      model: 'chat-small',
      messages: [{ role: 'user', content: 'hello?' }],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect(sim.ledger.charges.map((c) => c.kind)).toEqual(['chat']);
    expect(sim.ledger.submissionsByPrompt()).toEqual({ 'hello?': 1 });
  });

  test('polls and downloads are never dropped', async () => {
    const { sim, clock } = await start();
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'p' });
    sim.faults.acceptThenDropRate = 1;
    clock.tick(10_000);
    expect((await poll(sim.baseUrl, KEY, task.id)).status).toBe(200);
    expect((await rawGet(`${sim.baseUrl}/videos/${task.id}/content`, KEY)).complete).toBe(true);
  });
});

describe('truncated download', () => {
  test('announces the full Content-Length, sends half, closes', async () => {
    const { sim, clock } = await start({ faults: { truncateDownloadRate: 1 }, videoBytes: 200_000 });
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'p' });
    clock.tick(10_000);
    const got = await rawGet(`${sim.baseUrl}/videos/${task.id}/content`, KEY);
    expect(got.status).toBe(200);
    expect(got.headers['content-length']).toBe('200000');
    expect(got.complete).toBe(false);
    expect(got.bytes.length).toBeLessThan(200_000);
    expect(got.bytes.length).toBe(100_000);
  });
});

describe('intermediary errors', () => {
  test('a 504/502 HTML page on submit, and the task was created all the same', async () => {
    const { sim } = await start({ faults: { errorRates: { submit: 1 }, errorFlavor: 'intermediary' } });
    const res = await post(sim.baseUrl, '/video/generations', KEY, { model: 'video-fast', prompt: 'ambiguous' });
    expect([502, 504]).toContain(res.status);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(sim.ledger.tasks).toHaveLength(1);
    expect(sim.ledger.submissionsByPrompt()).toEqual({ ambiguous: 1 });
  });

  test('the envelope flavor keeps nothing', async () => {
    const { sim } = await start({ faults: { errorRates: { submit: 1 }, errorFlavor: 'envelope' } });
    const res = await post(sim.baseUrl, '/video/generations', KEY, { model: 'video-fast', prompt: 'nothing kept' });
    expect([500, 502, 503]).toContain(res.status);
    expect(sim.ledger.tasks).toHaveLength(0);
    expect(sim.ledger.chargesTotal('acct-1')).toBe(0);
  });

  test('mixed gives both flavors', async () => {
    const { sim } = await start({ faults: { errorRate: 1, errorFlavor: 'mixed' } });
    const types = new Set<string>();
    for (let i = 0; i < 30; i++) types.add((await get(sim.baseUrl, '/models', KEY)).headers.get('content-type')!);
    expect([...types].sort()).toEqual(['application/json', 'text/html']);
  });

  test('per-endpoint rates override the global one', async () => {
    const { sim } = await start({ faults: { errorRate: 1, errorRates: { models: 0 } } });
    expect((await get(sim.baseUrl, '/models', KEY)).status).toBe(200);
    expect(
      (await post(sim.baseUrl, '/responses', KEY, { model: 'chat-small', input: 'x' })).status,
    ).toBeGreaterThanOrEqual(500);
  });
});

describe('task outcomes', () => {
  test('failRate: about that share of tasks fail, the same ones for the same seed', async () => {
    const outcomes: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const { sim: s, clock } = await start({ faults: { failRate: 0.3 }, seed: 9 });
      for (let i = 0; i < 40; i++)
        await submit(s.baseUrl, KEY, { model: 'video-mini', prompt: `p${i}`, resolution: '480p' });
      clock.tick(10_000);
      outcomes.push(s.ledger.tasks.map((t) => t.state));
      await s.close();
      sim = undefined;
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    const failed = outcomes[0]!.filter((s) => s === 'FAILURE').length;
    expect(failed).toBeGreaterThan(4);
    expect(failed).toBeLessThan(20);
    expect(outcomes[0]!.every((s) => s === 'FAILURE' || s === 'SUCCESS')).toBe(true);
  });

  test('finalResolution: the output comes out at another resolution of the tier', async () => {
    const { sim, clock } = await start({ faults: { finalResolution: '1080p' } });
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'p', resolution: '480p' });
    clock.tick(10_000);
    const { json } = await poll(sim.baseUrl, KEY, task.id);
    expect(json.data.data.resolution).toBe('1080p');
    expect(json.data.data.usage.total_tokens).toBe(245025);
  });

  test('finalResolution the tier lacks is ignored; finalResolutionRate picks another supported one', async () => {
    const { sim, clock } = await start({ faults: { finalResolution: '4k', finalResolutionRate: 1 } });
    await submit(sim.baseUrl, KEY, { model: 'video-pro-2.5', prompt: 'p', resolution: '720p' });
    clock.tick(10_000);
    expect(sim.ledger.tasks[0]).toMatchObject({ requestedResolution: '720p', finalResolution: '1080p' });
  });
});

describe('latency', () => {
  const settled = async (answer: Promise<unknown>): Promise<boolean> => {
    let done = false;
    void answer.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  test('every /v1 request waits latencyMs on the clock before it is answered', async () => {
    const { sim, clock } = await start({ faults: { latencyMs: 250 } });
    const answer = get(sim.baseUrl, '/models', KEY);
    await clock.waitForSleepers(1);
    clock.tick(249);
    expect(await settled(answer)).toBe(false);
    clock.tick(1);
    expect((await answer).status).toBe(200);
    sim.faults.latencyMs = 0;
    expect((await get(sim.baseUrl, '/models', KEY)).status).toBe(200); // no sleep: the clock never moved
  });

  test('many requests waiting in latency at once raise no listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const { sim, clock } = await start({ faults: { latencyMs: 50 } });
      const pending = Promise.all(Array.from({ length: 20 }, () => get(sim.baseUrl, '/models', KEY)));
      await clock.waitForSleepers(20);
      clock.tick(50);
      expect((await pending).map((a) => a.status)).toEqual(Array(20).fill(200));
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  test('close() ends a request waiting in latency: it is cut, not answered', async () => {
    const { sim, clock } = await start({ faults: { latencyMs: 5_000 } });
    const pending = get(sim.baseUrl, '/models', KEY).then(
      () => 'answered',
      () => 'cut',
    );
    await clock.waitForSleepers(1);
    await sim.close(); // the clock never reaches the latency's end: only the cut can end the wait
    expect(await pending).toBe('cut');
  });
});

describe('fault options are checked', () => {
  test('a rate outside 0..1 fails startSimulator with the field named', async () => {
    await expect(startSimulator({ faults: { failRate: 2 } })).rejects.toThrow(/failRate/);
    await expect(startSimulator({ faults: { errorRates: { submit: -1 } } })).rejects.toThrow(/errorRates\.submit/);
    await expect(startSimulator({ videoBytes: 10 })).rejects.toThrow(/videoBytes/);
  });

  test('assigning a whole new faults object applies it', async () => {
    const { sim } = await start();
    sim.faults = { ...sim.faults, errorRate: 1 };
    expect((await get(sim.baseUrl, '/models', KEY)).status).toBeGreaterThanOrEqual(500);
  });
});
