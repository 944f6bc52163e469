// The download lane: a slot is held while bytes arrive; the file's fsync, rename and journal entry
// finish outside it, bounded by the number of lanes.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { DownloadOptions } from '../../../src/gateway/client.js';
import type { Item } from '../../../src/journal/index.js';
import type { RunContext, RunEvents } from '../../../src/pipeline/context.js';
import { Downloader } from '../../../src/pipeline/lanes/downloader.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

interface Transfer {
  id: string;
  receive(): void;
  finish(): void;
}

/** A gateway whose downloads the test moves on by hand: bytes in (onReceived), then file in place. */
function fakeContext(lanes: number) {
  const log: string[] = [];
  const transfers = new Map<string, Transfer>();
  const started = new EventEmitter();
  const gateway = {
    download(taskId: string, _dest: string, options: DownloadOptions = {}) {
      log.push(`start ${taskId}`);
      return new Promise((resolve) => {
        transfers.set(taskId, {
          id: taskId,
          receive: () => {
            log.push(`received ${taskId}`);
            options.onReceived?.();
          },
          finish: () => {
            log.push(`in place ${taskId}`);
            resolve({ bytes: 1, sha256: 'ab', source: 'content' });
          },
        });
        started.emit('start', taskId);
      });
    },
  };
  const commits = {
    write: async (change: { id: string; event: string }, item: Item) => {
      log.push(`${change.event} ${item.taskId}`);
      return { ...item, state: 'downloaded' };
    },
  };
  const ctx = {
    gateway,
    commits,
    clock: systemClock,
    random: () => 0.5,
    journal: { annotate: () => undefined },
    events: new EventEmitter<RunEvents>(),
    settings: { outDir: '/tmp/gbatch-downloader-test', downloadConcurrency: lanes, pollIntervalMs: 10 },
    hardStop: new AbortController(),
    stop: new AbortController(),
    voice: operatorVoice,
  } as unknown as RunContext;
  const nextStart = () =>
    new Promise<Transfer>((resolve) =>
      started.once('start', (id: string) => setImmediate(() => resolve(transfers.get(id)!))),
    );
  return { ctx, log, nextStart };
}

const item = (n: number) =>
  ({ id: `row${n}`, taskId: `task${n}`, resultUrl: null, state: 'succeeded' }) as unknown as Item;

describe('Downloader', () => {
  it('one lane: the next transfer starts once the bytes are in, before the file is in place', async () => {
    const { ctx, log, nextStart } = fakeContext(1);
    const downloader = new Downloader(ctx);
    let next = nextStart();
    downloader.add(item(1));
    downloader.add(item(2));
    downloader.add(item(3));
    const first = await next;
    next = nextStart();
    first.receive();
    const second = await next;
    expect(log).toEqual(['start task1', 'received task1', 'start task2']);

    // One file is already finishing, as many as there are lanes: the second keeps its slot.
    let thirdStarted = false;
    next = nextStart();
    void next.then(() => {
      thirdStarted = true;
    });
    second.receive();
    await new Promise((resolve) => setImmediate(resolve));
    expect(thirdStarted).toBe(false);
    first.finish();
    second.finish();
    const third = await next;
    third.receive();
    third.finish();
    await downloader.idle();
    expect(log).toEqual([
      'start task1',
      'received task1',
      'start task2',
      'received task2',
      'in place task1',
      'in place task2',
      'store task1',
      'store task2',
      'start task3',
      'received task3',
      'in place task3',
      'store task3',
    ]);
  });

  it('idle() waits for files still finishing outside the lane', async () => {
    const { ctx, log, nextStart } = fakeContext(2);
    const downloader = new Downloader(ctx);
    const next = nextStart();
    downloader.add(item(1));
    const only = await next;
    only.receive();
    let idle = false;
    const waiting = downloader.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    only.finish();
    await waiting;
    expect(log.at(-1)).toBe('store task1');
  });
});
