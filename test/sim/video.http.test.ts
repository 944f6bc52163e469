// Video endpoints over plain HTTP: submission, the task's life in both polling shapes, and download.

import type { ManualClock } from '../../src/core/clock.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { get, KEY, simClock, poll, rawGet, submit } from '../helpers/sim-http.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions = {}): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = simClock();
  sim = await startSimulator({ accounts: [{ key: KEY, balanceUsd: 20 }], taskSeconds: 10, clock, ...options });
  return { sim, clock };
}

describe('submission (spec 2.10)', () => {
  test('200 with id, task_id and status queued', async () => {
    const { sim } = await start();
    const { status, json } = await submit(sim.baseUrl, KEY, {
      model: 'video-fast',
      prompt: 'a red kite',
      resolution: '720p',
      duration: 5,
    });
    expect(status).toBe(200);
    expect(json.id).toMatch(/^task_[0-9A-Za-z]{24}$/);
    expect(json.task_id).toBe(json.id);
    expect(json.status).toBe('queued');
  });

  test('task ids come from the seed: the same seed gives the same ids', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { sim: s } = await start({ seed: 42 });
      ids.push((await submit(s.baseUrl, KEY, { model: 'video-fast', prompt: 'p' })).json.id);
      await s.close();
    }
    expect(ids[0]).toBe(ids[1]);
  });
});

describe('Shape A (default): the generic task wrapper', () => {
  test('NOT_START -> QUEUED -> IN_PROGRESS with rising progress -> SUCCESS with result_url and usage', async () => {
    const { sim, clock } = await start();
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'kite', duration: '5' });
    const seen: Array<[string, string]> = [];
    for (let t = 0; t <= 10; t += 1) {
      const { status, json } = await poll(sim.baseUrl, KEY, task.id);
      expect(status).toBe(200);
      expect(json.code).toBe('success');
      expect(json.data.task_id).toBe(task.id);
      seen.push([json.data.status, json.data.progress]);
      clock.tick(1000);
    }
    expect(seen[0]).toEqual(['NOT_START', '0%']);
    expect(seen[2]).toEqual(['QUEUED', '0%']);
    expect(seen.slice(3, 10).every(([s]) => s === 'IN_PROGRESS')).toBe(true);
    const progress = seen.slice(3, 10).map(([, p]) => Number.parseInt(p, 10));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[0]).toBeLessThan(progress.at(-1)!);
    expect(seen[10]).toEqual(['SUCCESS', '100%']);

    const { json: done } = await poll(sim.baseUrl, KEY, task.id);
    expect(done.data.result_url).toBe(`${sim.origin}/v1/videos/${task.id}/content`);
    expect(done.data.fail_reason).toBe('');
    expect(done.data.data).toMatchObject({ status: 'completed', usage: { total_tokens: 108900 }, resolution: '720p' });
    // quota: the settled charge, 0.41477832 USD x 500,000.
    expect(done.data.quota).toBe(207389);
  });

  test('quota is the reservation while running', async () => {
    const { sim } = await start();
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'kite' });
    const { json } = await poll(sim.baseUrl, KEY, task.id);
    expect(json.data.quota).toBe(207389);
    expect(json.data.result_url).toBeUndefined();
  });

  test('a failed task reads FAILURE with a fail_reason and no result_url', async () => {
    const { sim, clock } = await start({ faults: { failRate: 1 } });
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-mini', prompt: 'storm' });
    clock.tick(10_000);
    const { json } = await poll(sim.baseUrl, KEY, task.id);
    expect(json.data.status).toBe('FAILURE');
    expect(json.data.fail_reason).toMatch(/failure/i);
    expect(json.data.result_url).toBeUndefined();
    expect(json.data.data.status).toBe('failed');
    expect(json.data.quota).toBe(0);
  });
});

describe('Shape B (option): the machine-readable schema', () => {
  test('unknown -> queued -> in_progress -> completed with url, format and metadata', async () => {
    const { sim, clock } = await start({ shape: 'b' });
    const { json: task } = await submit(sim.baseUrl, KEY, {
      model: 'video-pro',
      prompt: 'city',
      resolution: '4K',
      duration: 2,
    });
    const states: string[] = [];
    for (const step of [0, 1.5, 3.5, 5]) {
      clock.tick(1000 * step); // polled at 0, 1.5, 5 and 10 s of a 10 s task
      states.push((await poll(sim.baseUrl, KEY, task.id)).json.status);
    }
    expect(states).toEqual(['unknown', 'queued', 'in_progress', 'completed']);
    const { json } = await poll(sim.baseUrl, KEY, task.id);
    expect(json).toMatchObject({
      task_id: task.id,
      status: 'completed',
      url: `${sim.origin}/v1/videos/${task.id}/content`,
      format: 'mp4',
      metadata: { resolution: '4k', usage: { total_tokens: Math.floor((3840 * 2160 * 49) / 1024) } },
      error: null,
    });
  });

  test('failed with an error object', async () => {
    const { sim, clock } = await start({ shape: 'b', faults: { failRate: 1 } });
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'x' });
    clock.tick(11_000);
    const { json } = await poll(sim.baseUrl, KEY, task.id);
    expect(json.status).toBe('failed');
    expect(json.error).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    expect(json.url).toBeUndefined();
  });
});

describe('content (endpoint 6)', () => {
  test('400 until SUCCESS, then a real MP4 with Content-Length; result_url works the same', async () => {
    const { sim, clock } = await start();
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'kite' });
    const early = await get(sim.baseUrl, `/videos/${task.id}/content`, KEY);
    expect(early.status).toBe(400);
    expect(((await early.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'task_not_ready',
    });

    clock.tick(10_000);
    const res = await get(sim.baseUrl, `/videos/${task.id}/content`, KEY);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const { json } = await poll(sim.baseUrl, KEY, task.id);
    const viaUrl = await rawGet(json.data.result_url, KEY);
    expect(viaUrl).toMatchObject({ status: 200, complete: true });
    expect(viaUrl.bytes.equals(bytes)).toBe(true);
  });

  test('videoBytes pads the file to the exact size asked for', async () => {
    const { sim, clock } = await start({ videoBytes: 300_000 });
    const { json: task } = await submit(sim.baseUrl, KEY, { model: 'video-fast', prompt: 'big' });
    clock.tick(10_000);
    const got = await rawGet(`${sim.baseUrl}/videos/${task.id}/content`, KEY);
    expect(got.complete).toBe(true);
    expect(got.bytes.length).toBe(300_000);
    expect(got.headers['content-length']).toBe('300000');
  });
});
