// Every move checked by the transition table, written compare-and-set, a batch all or none.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { IllegalTransitionError, type ItemState } from '../../../../src/core/states.js';
import { StaleTransitionError, type Change, type JournalStore } from '../../../../src/journal/index.js';
import { fourRows, ingest, row, submit, thrown, zeroCounts, type Harness } from '../harness.js';

export function applyTransitionsConformance(label: string, harness: Harness): void {
  describe(`applyTransitions and apply: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    describe('moves of the transition table', () => {
      beforeEach(async () => {
        await ingest(store, fourRows());
      });

      it('chat: submit, complete, store; each move returned and logged with its detail', async () => {
        const moves = await store.applyTransitions([submit('chat')]);
        expect(moves).toEqual([{ from: 'pending', to: 'submitting', at: clock.now() }]);
        clock.tick(5);
        const [done] = await store.apply([
          {
            id: 'chat',
            event: 'complete',
            patch: {
              response: { id: 'r1', text: 'hi\tthere' },
              responseStatus: 200,
              requestId: 'req-1',
              reservedUsd: 0,
              actualUsd: 0.004,
              totalTokens: 42,
            },
          },
        ]);
        expect(done).toMatchObject({
          state: 'succeeded',
          response: { id: 'r1', text: 'hi\tthere' },
          responseStatus: 200,
          actualUsd: 0.004,
          totalTokens: 42,
          attempts: 1,
          priceSnapshot: { usdPerCall: 0.01 },
        });
        await store.markStored(['chat'], 'results.jsonl', { line: 1 });
        expect((await store.get('chat'))!).toMatchObject({ state: 'downloaded', outputPath: 'results.jsonl' });
        expect(await store.events('chat')).toEqual([
          { at: clock.now() - 5, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
          { at: clock.now(), event: 'complete', from: 'submitting', to: 'succeeded', detail: null },
          { at: clock.now(), event: 'store', from: 'succeeded', to: 'downloaded', detail: { line: 1 } },
        ]);
      });

      it('video: submit, accept, progress, finish, store; and fail', async () => {
        await store.applyTransitions([
          submit('video', 0.5),
          { id: 'video', event: 'accept', patch: { taskId: 'task-1' } },
        ]);
        await store.applyTransitions([
          { id: 'video', event: 'progress' },
          { id: 'video', event: 'progress' },
        ]);
        expect((await store.get('video'))!).toMatchObject({ state: 'running', taskId: 'task-1' });
        await store.applyTransitions([
          {
            id: 'video',
            event: 'finish',
            patch: { resultUrl: 'https://x/v.mp4', finalResolution: '720p', actualUsd: 0.5, reservedUsd: 0 },
          },
        ]);
        await store.applyTransitions([
          { id: 'video', event: 'store', patch: { outputPath: 'out/video.mp4', sha256: 'ab', bytes: 1234 } },
        ]);
        expect((await store.get('video'))!).toMatchObject({
          state: 'downloaded',
          bytes: 1234,
          sha256: 'ab',
          finalResolution: '720p',
        });
        await store.applyTransitions([
          submit('third'),
          { id: 'third', event: 'accept', patch: { taskId: 't3' } },
          {
            id: 'third',
            event: 'fail',
            patch: { lastError: { code: 'E', message: 'upstream failed' }, reservedUsd: 0 },
          },
        ]);
        expect((await store.get('third'))!).toMatchObject({
          state: 'failed',
          lastError: { code: 'E', message: 'upstream failed' },
        });
      });

      it('the operator paths: lose, resubmit, attach, defer, release, abandon, requeue, retry, reject, oversize', async () => {
        const path: Array<[string, Change['event'], ItemState]> = [
          ['chat', 'submit', 'submitting'],
          ['chat', 'lose', 'uncertain'],
          ['chat', 'resubmit', 'pending'],
          ['chat', 'submit', 'submitting'],
          ['chat', 'retry', 'pending'],
          ['chat', 'defer', 'deferred'],
          ['chat', 'release', 'pending'],
          ['chat', 'submit', 'submitting'],
          ['chat', 'reject', 'rejected'],
          ['chat', 'requeue', 'pending'],
          ['chat', 'abandon', 'failed'],
          ['chat', 'requeue', 'pending'],
          ['chat', 'submit', 'submitting'],
          ['chat', 'oversize', 'failed'],
          ['video', 'submit', 'submitting'],
          ['video', 'lose', 'uncertain'],
          ['video', 'attach', 'submitted'],
          ['third', 'defer', 'deferred'],
          ['third', 'abandon', 'failed'],
          ['fourth', 'submit', 'submitting'],
          ['fourth', 'defer', 'deferred'],
        ];
        for (const [id, event, to] of path) {
          const [moved] = await store.applyTransitions([
            { id, event, ...(event === 'attach' ? { patch: { taskId: 'attached' } } : {}) },
          ]);
          expect(moved!.to, `${id} ${event}`).toBe(to);
        }
        expect(await store.counts()).toEqual({ ...zeroCounts(), failed: 2, submitted: 1, deferred: 1 });
        expect((await store.events('chat')).map((e) => e.event)).toEqual(
          path.filter(([id]) => id === 'chat').map(([, event]) => event),
        );
      });

      it('an illegal move, an unknown item or a bad field rolls the whole batch back', async () => {
        const before = await store.get('chat');
        const illegal = await thrown(store.applyTransitions([submit('chat'), { id: 'third', event: 'finish' }]));
        expect(illegal).toBeInstanceOf(IllegalTransitionError);
        await expect(store.applyTransitions([submit('chat'), { id: 'ghost', event: 'submit' }])).rejects.toThrow(
          "unknown item 'ghost'",
        );
        await expect(
          store.applyTransitions([submit('chat'), { id: 'third', event: 'submit', patch: { nonsense: 1 } as never }]),
        ).rejects.toThrow("unknown item field 'nonsense'");
        expect(await store.get('chat')).toEqual(before);
        expect(await store.events('chat')).toEqual([]);
        expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
      });

      it('compare-and-set: a stale `expect` throws StaleTransitionError and writes nothing', async () => {
        await store.applyTransitions([submit('chat'), { id: 'chat', event: 'lose' }]);
        const err = await thrown(
          store.applyTransitions([submit('third'), { id: 'chat', event: 'abandon', expect: 'submitting' }]),
        );
        expect(err).toBeInstanceOf(StaleTransitionError);
        expect(err).toMatchObject({
          itemId: 'chat',
          event: 'abandon',
          expected: 'submitting',
          actual: 'uncertain',
          code: 'GBATCH_STALE_TRANSITION',
        });
        expect((await store.get('third'))!.state).toBe('pending');
        await store.applyTransitions([{ id: 'chat', event: 'abandon', expect: 'uncertain' }]);
        expect((await store.get('chat'))!.state).toBe('failed');
      });

      it('a row moved by another connection between read and write is refused, never overwritten', async () => {
        const other = await harness.open({ clock });
        await other.applyTransitions([submit('chat')]);
        await expect(store.applyTransitions([{ id: 'chat', event: 'submit' }])).rejects.toBeInstanceOf(
          IllegalTransitionError,
        );
        await expect(store.applyTransitions([{ id: 'chat', event: 'lose', expect: 'pending' }])).rejects.toBeInstanceOf(
          StaleTransitionError,
        );
        await expect(store.markStored(['chat'], 'r.jsonl', {})).rejects.toBeInstanceOf(StaleTransitionError);
      });
    });

    describe('cancel moves', () => {
      const cancelRow = (id: string, expect?: ItemState): Change => ({
        id,
        event: 'cancel',
        patch: { reservedUsd: 0, lastError: { code: 'cancelled', message: 'cancelled by the operator' } },
        ...(expect ? { expect } : {}),
      });
      beforeEach(async () => {
        await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      });
      it('cancels pending and deferred rows (only them), each with its results line; requeue brings one back', async () => {
        await ingest(store, [row('p', 1), row('d', 2), row('s', 3)]);
        await store.applyTransitions([
          { id: 'd', event: 'defer', patch: { lastError: { message: 'over budget' } } },
          submit('s'),
        ]);
        await store.applyTransitions([cancelRow('p', 'pending'), cancelRow('d', 'deferred')]);
        expect(await thrown(store.applyTransitions([cancelRow('s')]))).toBeInstanceOf(IllegalTransitionError);
        expect(await thrown(store.applyTransitions([cancelRow('p', 'pending')]))).toBeInstanceOf(StaleTransitionError);
        expect(await store.counts()).toEqual({ ...zeroCounts(), cancelled: 2, submitting: 1 });
        const lines = await store.resultRows(0, 10, 100_000);
        expect(lines.map((l) => [l.id, l.state])).toEqual([
          ['p', 'cancelled'],
          ['d', 'cancelled'],
        ]);
        expect(JSON.parse(lines[0]!.last_error!)).toEqual({ code: 'cancelled', message: 'cancelled by the operator' });
        expect((await store.events('d')).at(-1)).toMatchObject({ event: 'cancel', from: 'deferred', to: 'cancelled' });
        await store.applyTransitions([{ id: 'p', event: 'requeue', patch: { lastError: null } }]);
        expect((await store.get('p'))!.state).toBe('pending');
      });
    });

    describe('operator decisions on an uncertain row', () => {
      beforeEach(async () => {
        await ingest(store, [
          row('a', 1, { kind: 'video' }),
          row('b', 2, { kind: 'video' }),
          row('c', 3, { kind: 'video' }),
        ]);
        await store.applyTransitions([submit('a', 2.5), { id: 'a', event: 'lose' }]);
      });
      it("abandon keeps an uncertain row's bound booked; unreserve releases it; the row stays abandoned while uncertain", async () => {
        await store.apply([
          {
            id: 'a',
            event: 'abandon',
            expect: 'uncertain',
            patch: { lastError: { type: 'abandoned_uncertain', message: 'booked' } },
          },
        ]);
        expect(await store.get('a')).toMatchObject({
          state: 'failed',
          reservedUsd: 2.5,
          lastError: { type: 'abandoned_uncertain' },
        });
        expect(await store.spend()).toEqual({ reservedUsd: 2.5, actualUsd: 0 });
        const [released] = await store.apply([
          {
            id: 'a',
            event: 'unreserve',
            expect: 'failed',
            patch: { reservedUsd: 0 },
            detail: { by: 'operator', notBilled: true },
          },
        ]);
        expect(released).toMatchObject({ state: 'failed', reservedUsd: 0 });
        expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
        expect((await store.events('a')).at(-1)).toMatchObject({
          event: 'unreserve',
          from: 'failed',
          to: 'failed',
          detail: { notBilled: true },
        });
        expect(await store.abandonedWhileUncertain(['a'])).toEqual(new Set(['a']));
      });
      it('detach: an attached task undone from downloaded, the task and its money cleared and the bound booked again', async () => {
        await store.apply([
          {
            id: 'a',
            event: 'attach',
            expect: 'uncertain',
            patch: { taskId: 'task_x' },
            detail: { by: 'operator', taskId: 'task_x', reservedUsd: 2.5 },
          },
        ]);
        await store.applyTransitions([
          { id: 'a', event: 'finish', patch: { actualUsd: 0.4, reservedUsd: 0, finalResolution: '720p' } },
        ]);
        await store.applyTransitions([
          { id: 'a', event: 'store', patch: { outputPath: 'out/a.mp4', sha256: 'ab', bytes: 9 } },
        ]);
        expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0.4 });
        const [back] = await store.apply([
          {
            id: 'a',
            event: 'detach',
            expect: 'downloaded',
            patch: {
              taskId: null,
              actualUsd: null,
              finalResolution: null,
              outputPath: null,
              sha256: null,
              bytes: null,
              reservedUsd: 2.5,
            },
            detail: { by: 'operator', taskId: 'task_x' },
          },
        ]);
        expect(back).toMatchObject({
          state: 'uncertain',
          taskId: null,
          actualUsd: null,
          outputPath: null,
          reservedUsd: 2.5,
        });
        expect(await store.spend()).toEqual({ reservedUsd: 2.5, actualUsd: 0 });
        expect(await store.counts()).toMatchObject({ uncertain: 1, downloaded: 0 });
      });
    });
  });
}
