import { describe, expect, it } from 'vitest';
import {
  LIVE_STREAM_CAPS,
  LIVE_STREAMS_IN_ALL,
  LIVE_STREAMS_PER_VIEWER,
  liveStreamRefusal,
} from '../../src/core/live-stream-caps.js';
import { LatestFrame, LiveFeeds, type LivePlace } from '../../src/ui/live-feeds.js';

/** A clock the test moves: each feed's wait resolves when the test ticks, or when the feed stops. */
function manualClock() {
  const waiting = new Set<{ resolve: () => void }>();
  return {
    waiting: () => waiting.size,
    wait: (_ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const entry = { resolve };
        waiting.add(entry);
        signal.addEventListener('abort', () => {
          waiting.delete(entry);
          resolve();
        });
      }).then(() => undefined),
    tick() {
      const due = [...waiting];
      waiting.clear();
      for (const entry of due) entry.resolve();
    },
  };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
const job = (key: string) => ({ key, location: `/state/${key}.db` });

function feedsOver(figures: Map<string, string>, caps = LIVE_STREAM_CAPS) {
  const clock = manualClock();
  const readsOf: Record<string, number> = {};
  const logged: string[] = [];
  const feeds = new LiveFeeds({
    read: async (j) => {
      readsOf[j.key] = (readsOf[j.key] ?? 0) + 1;
      const key = figures.get(j.key);
      if (key === undefined) throw new Error('no such journal');
      return { key, frame: async () => `frame ${j.key} ${key}` };
    },
    intervalMs: 500,
    wait: clock.wait,
    caps,
    log: (line) => logged.push(line),
  });
  return { feeds, clock, readsOf, logged };
}

describe('LiveFeeds', () => {
  it('reads a job once per interval however many streams watch it, and sends each frame to all of them', async () => {
    const figures = new Map([['night', 'a']]);
    const { feeds, clock, readsOf } = feedsOver(figures);
    const got: string[][] = Array.from({ length: LIVE_STREAMS_IN_ALL }, () => []);
    const places = got.map((frames, i) => feeds.join(job('night'), `viewer-${i % 32}`, (f) => frames.push(f)));
    await flush();
    expect(readsOf.night).toBe(1);
    expect(got.every((frames) => frames.length === 1 && frames[0] === 'frame night a')).toBe(true);
    expect(clock.waiting()).toBe(1);
    // An interval without a change: one read, nothing sent.
    clock.tick();
    await flush();
    expect(readsOf.night).toBe(2);
    expect(got.every((frames) => frames.length === 1)).toBe(true);
    figures.set('night', 'b');
    clock.tick();
    await flush();
    expect(readsOf.night).toBe(3);
    expect(got.every((frames) => frames.at(-1) === 'frame night b' && frames.length === 2)).toBe(true);
    expect(feeds.reads).toBe(3);
    expect(feeds.streams).toBe(LIVE_STREAMS_IN_ALL);
    for (const place of places) (place as LivePlace).leave();
    expect(feeds.streams).toBe(0);
  });

  it('a stream that joins a running feed gets its latest frame at once, without a read of its own', async () => {
    const { feeds, readsOf } = feedsOver(new Map([['night', 'a']]));
    feeds.join(job('night'), 'v1', () => {});
    await flush();
    const late: string[] = [];
    feeds.join(job('night'), 'v2', (f) => late.push(f));
    expect(late).toEqual(['frame night a']);
    expect(readsOf.night).toBe(1);
  });

  it('stops a feed when its last stream leaves: its wait ends, no read follows, a new stream starts afresh', async () => {
    const { feeds, clock, readsOf } = feedsOver(new Map([['night', 'a']]));
    const a = feeds.join(job('night'), 'v', () => {}) as LivePlace;
    const b = feeds.join(job('night'), 'v', () => {}) as LivePlace;
    await flush();
    a.leave();
    a.leave(); // twice is once
    expect(feeds.streams).toBe(1);
    expect(clock.waiting()).toBe(1);
    b.leave();
    expect(clock.waiting()).toBe(0);
    await flush();
    expect(readsOf.night).toBe(1);
    const frames: string[] = [];
    feeds.join(job('night'), 'v', (f) => frames.push(f));
    await flush();
    expect(readsOf.night).toBe(2);
    expect(frames).toEqual(['frame night a']);
  });

  it('refuses a stream past the per-viewer cap and past the total, and a left place is free again', () => {
    const { feeds } = feedsOver(new Map([['night', 'a']]), { perViewer: 2, inAll: 3 });
    const first = feeds.join(job('night'), 'alice', () => {}) as LivePlace;
    feeds.join(job('night'), 'alice', () => {});
    expect(feeds.join(job('night'), 'alice', () => {})).toMatch(/one sign-in holds 2 at once/);
    feeds.join(job('night'), 'bob', () => {});
    expect(feeds.join(job('night'), 'carol', () => {})).toMatch(/this server holds 3 at once/);
    // Without sign-in only the total counts.
    expect(feeds.join(job('night'), undefined, () => {})).toMatch(/this server holds 3/);
    first.leave();
    expect(feeds.join(job('night'), 'alice', () => {})).not.toBeTypeOf('string');
    expect(feeds.streams).toBe(3);
  });

  it('a journal that cannot be read is said once, and read again on the next interval', async () => {
    const figures = new Map<string, string>();
    const { feeds, clock, readsOf, logged } = feedsOver(figures);
    const frames: string[] = [];
    feeds.join(job('gone'), 'v', (f) => frames.push(f));
    await flush();
    clock.tick();
    await flush();
    expect(readsOf.gone).toBe(2);
    expect(logged).toEqual(['live figures of gone: no such journal']);
    figures.set('gone', 'back');
    clock.tick();
    await flush();
    expect(frames).toEqual(['frame gone back']);
  });
});

describe('liveStreamRefusal', () => {
  it('names the cap it is past: the server first, then the viewer', () => {
    expect(LIVE_STREAMS_PER_VIEWER).toBe(8);
    expect(LIVE_STREAMS_IN_ALL).toBe(256);
    expect(liveStreamRefusal({ mine: 7, all: 255 }, LIVE_STREAM_CAPS)).toBeUndefined();
    expect(liveStreamRefusal({ mine: 8, all: 8 }, LIVE_STREAM_CAPS)).toMatch(/one sign-in holds 8/);
    expect(liveStreamRefusal({ mine: 0, all: 256 }, LIVE_STREAM_CAPS)).toMatch(/this server holds 256/);
    expect(liveStreamRefusal({ mine: undefined, all: 255 }, LIVE_STREAM_CAPS)).toBeUndefined();
  });
});

describe('LatestFrame', () => {
  it('writes frames in turn, and of those that came while a write was under way only the newest', async () => {
    const outbox = new LatestFrame();
    outbox.put('before');
    const written: string[] = [];
    let release: () => void = () => {};
    outbox.attach(async (frame) => {
      written.push(frame);
      if (frame === 'before') await new Promise<void>((resolve) => (release = resolve));
    });
    expect(written).toEqual(['before']);
    outbox.put('1');
    outbox.put('2');
    outbox.put('3');
    release();
    await flush();
    expect(written).toEqual(['before', '3']);
  });
});
