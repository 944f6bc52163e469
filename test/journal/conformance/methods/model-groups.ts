// The pricing check's groups of rows by kind, model and resolution.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, ingestRun, invalidRow, row, submit, type Harness } from '../harness.js';

export function modelGroupsConformance(label: string, harness: Harness): void {
  describe(`modelGroups: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
    });

    it('groups the rows of the states asked by kind, model and resolution, each with its first row in manifest order', async () => {
      await ingest(store, [
        row('c1', 1),
        row('v1', 2, { kind: 'video', sourceFile: 'videos.jsonl' }),
        row('c2', 3, { model: 'chat-large' }),
        row('v2', 4, { kind: 'video', resolution: '1080p' }),
        row('v3', 5, { kind: 'video' }),
        row('c3', 6),
        invalidRow('bad', 7),
      ]);
      await store.applyTransitions([submit('c1'), { id: 'v1', event: 'defer', detail: { reason: 'budget' } }]);
      const groups = await store.modelGroups(['pending', 'deferred']);
      expect(groups).toEqual([
        {
          kind: 'video',
          model: 'video-fast',
          resolution: '720p',
          rows: 2,
          first: { id: 'v1', state: 'deferred', sourceFile: 'videos.jsonl', sourceLine: 2 },
        },
        {
          kind: 'chat',
          model: 'chat-large',
          resolution: null,
          rows: 1,
          first: { id: 'c2', state: 'pending', sourceFile: 'manifest.jsonl', sourceLine: 3 },
        },
        {
          kind: 'video',
          model: 'video-fast',
          resolution: '1080p',
          rows: 1,
          first: { id: 'v2', state: 'pending', sourceFile: 'manifest.jsonl', sourceLine: 4 },
        },
        {
          kind: 'chat',
          model: 'chat-small',
          resolution: null,
          rows: 1,
          first: { id: 'c3', state: 'pending', sourceFile: 'manifest.jsonl', sourceLine: 6 },
        },
      ]);
      expect(await store.modelGroups(['submitting'])).toEqual([
        {
          kind: 'chat',
          model: 'chat-small',
          resolution: null,
          rows: 1,
          first: { id: 'c1', state: 'submitting', sourceFile: 'manifest.jsonl', sourceLine: 1 },
        },
      ]);
      expect(await store.modelGroups(['uncertain'])).toEqual([]);
    });

    it("the pricing check's model groups leave orphaned rows out (a run does not send them); an adopted row counts", async () => {
      await ingestRun(store, [row('a', 1), row('b', 2, { model: 'chat-large' }), row('c', 3, { model: 'chat-gone' })]);
      await ingestRun(store, [row('a', 1)]);
      expect((await store.modelGroups(['pending', 'deferred'])).map((group) => group.model)).toEqual(['chat-small']);
      await store.adopt(['c']);
      expect((await store.modelGroups(['pending', 'deferred'])).map((group) => group.model)).toEqual([
        'chat-small',
        'chat-gone',
      ]);
    });
  });
}
