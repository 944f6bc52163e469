// ONE set of expectations for every adapter of the journal interface: each adapter's test file calls
// journalConformance with its harness. When the adapters differ, one of them is wrong.
import { ManualClock } from '../../../src/core/clock.js';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IllegalTransitionError, ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import {
  eventLog,
  JobCancelledError,
  JournalBusyError,
  LockLostError,
  StaleTransitionError,
  type Change,
  type JournalStore,
} from '../../../src/journal/index.js';
import { ingest, invalidRow, row, thrown, type Harness, type UseHarness } from './harness.js';
import { deadPid } from '../../helpers/dead-pid.js';
import { operatorDecisions } from './operator-decisions.js';

const zeroCounts = (): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;

const submit = (id: string, reservedUsd = 0.01, attempt = 1): Change => ({
  id,
  event: 'submit',
  patch: { attempts: attempt, reservedUsd, priceSnapshot: { usdPerCall: reservedUsd } },
  detail: { attempt },
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export function journalConformance(label: string, useHarness: UseHarness): void {
  describe(`journal conformance: ${label}`, () => {
    const harness: Harness = useHarness();
    let clock: ManualClock;
    let store: JournalStore;

    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    describe('job and empty journal', () => {
      it('starts empty: no job, every state counted at zero, nothing spent', async () => {
        expect(await store.getJob()).toBeUndefined();
        expect(await store.counts()).toEqual(zeroCounts());
        expect(await store.spend()).toEqual({ reservedUsd: 0, actualUsd: 0 });
        expect(await store.list(['pending'])).toEqual([]);
        expect(await store.lastRun()).toBeUndefined();
        expect(await store.firstOpenSeq()).toBeUndefined();
        expect(await store.resultRows(0, 10, 1000)).toEqual([]);
        expect(await store.reportSums()).toEqual({
          total: {
            items: 0,
            settled: null,
            estimated: null,
            actual: null,
            settled_estimated: null,
            reserved: null,
            over: null,
            gateway: null,
            gateway_n: 0,
            tokens: null,
            unmetered: null,
          },
          groups: [],
        });
      });

      it('saves the job and keeps its budget; a later save updates it and keeps createdAt', async () => {
        const name = harness.jobName();
        clock.tick(1000);
        await store.saveJob({ name, manifest: 'rows.jsonl', options: { budget: 5, concurrency: 4 }, budgetUsd: 5 });
        const created = clock.now();
        clock.tick(1000);
        expect(await store.getJob()).toEqual({
          name,
          manifest: 'rows.jsonl',
          options: { budget: 5, concurrency: 4 },
          createdAt: created,
          updatedAt: created,
          budgetUsd: 5,
        });
        await store.saveJob({ name, manifest: 'rows2.jsonl', options: {}, budgetUsd: undefined });
        expect(await store.getJob()).toEqual({
          name,
          manifest: 'rows2.jsonl',
          options: {},
          createdAt: created,
          updatedAt: created + 1000,
        });
      });
    });

    it('a read-only store reads the journal and writes nothing', async () => {
      await ingest(store, [row('a', 1)]);
      const reader = await harness.open({ clock, readonly: true });
      expect((await reader.get('a'))!.state).toBe('pending');
      expect((await reader.counts()).pending).toBe(1);
      await expect(reader.applyTransitions([submit('a')])).rejects.toThrow();
      expect((await store.get('a'))!.state).toBe('pending');
    });

    it("lists the job's runners for views: the one that joined, live, as a read-only reader sees it too", async () => {
      await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      expect(await store.runners()).toEqual([]);
      await store.membership.acquire();
      const reader = await harness.open({ clock, readonly: true });
      for (const runners of [await store.runners(), await reader.runners()]) {
        expect(runners).toHaveLength(1);
        expect(runners[0]).toMatchObject({ pid: process.pid, rows: 0, liveness: { alive: true } });
      }
      await store.membership.release();
    });

    describe('ingest', () => {
      it('inserts rows in manifest order and reads every field back as written', async () => {
        const rows = [row('b', 1), row('a', 2, { kind: 'video', hasReferenceVideo: true }), invalidRow('c', 3)];
        expect(await ingest(store, rows)).toEqual({ inserted: 3, unchanged: 0, replaced: 0, conflicts: [] });
        const listed = await store.list(['pending', 'invalid']);
        expect(listed.map((i) => i.id)).toEqual(['b', 'a', 'c']);
        expect(listed[0]!.seq).toBeLessThan(listed[1]!.seq);
        const b = (await store.get('b'))!;
        expect(b).toMatchObject({
          id: 'b',
          kind: 'chat',
          model: 'chat-small',
          request: rows[0]!.request,
          contentHash: 'hash-of-b',
          sourceFile: 'manifest.jsonl',
          sourceLine: 1,
          state: 'pending',
          attempts: 0,
          autoResubmits: 0,
          taskId: null,
          resolution: null,
          hasReferenceVideo: false,
          estimateUsd: 0.01,
          reservedUsd: 0,
          priceSnapshot: null,
          actualUsd: null,
          lastError: null,
          unmetered: false,
          updatedAt: clock.now(),
        });
        expect((await store.get('a'))!).toMatchObject({
          kind: 'video',
          resolution: '720p',
          hasReferenceVideo: true,
          estimateUsd: 0.5,
        });
        expect((await store.get('c'))!).toMatchObject({
          kind: 'invalid',
          model: '',
          request: {},
          state: 'invalid',
          lastError: { message: 'row 3: prompt is required' },
        });
        expect(await store.get('nope')).toBeUndefined();
        expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 2, invalid: 1 });
      });

      it('keeps request text given as JSON exactly as written', async () => {
        const requestJson = '{"model":"chat-small","messages":[{"role":"user","content":"caf\\u00e9 \\\\ \\"q\\""}]}';
        await ingest(store, [row('j', 1, { request: null, requestJson })]);
        expect((await store.get('j'))!.request).toEqual(JSON.parse(requestJson));
      });

      it('judges rows under ids already held: unchanged, replaced (was invalid), conflict', async () => {
        await ingest(store, [row('same', 1), row('changed', 2), invalidRow('fixme', 3)]);
        const summary = await ingest(store, [
          row('same', 1),
          row('changed', 7, { contentHash: 'new-hash', sourceFile: 'other.jsonl' }),
          row('fixme', 8, { contentHash: 'fixed' }),
          row('fresh', 9),
        ]);
        expect(summary).toEqual({
          inserted: 1,
          unchanged: 1,
          replaced: 1,
          conflicts: [{ id: 'changed', file: 'other.jsonl', line: 7, journalFile: 'manifest.jsonl', journalLine: 2 }],
        });
        expect((await store.get('fixme'))!).toMatchObject({
          state: 'pending',
          contentHash: 'fixed',
          sourceLine: 8,
          kind: 'chat',
          lastError: null,
        });
        expect((await store.get('changed'))!.contentHash).toBe('hash-of-changed');
        expect((await store.list(['pending', 'invalid'])).map((i) => i.id)).toEqual([
          'same',
          'changed',
          'fixme',
          'fresh',
        ]);
      });

      it('judges an id repeated within one ingest against its first row', async () => {
        const summary = await ingest(store, [
          row('twice', 1),
          row('twice', 2),
          row('clash', 3),
          row('clash', 4, { contentHash: 'other' }),
          invalidRow('bad', 5),
          row('bad', 6, { contentHash: 'good' }),
          row('bad', 7, { contentHash: 'good-again' }),
        ]);
        expect(summary).toEqual({
          inserted: 3,
          unchanged: 1,
          replaced: 1,
          conflicts: [
            { id: 'clash', file: 'manifest.jsonl', line: 4, journalFile: 'manifest.jsonl', journalLine: 3 },
            { id: 'bad', file: 'manifest.jsonl', line: 7, journalFile: 'manifest.jsonl', journalLine: 6 },
          ],
        });
        expect((await store.get('bad'))!).toMatchObject({ state: 'pending', contentHash: 'good', sourceLine: 6 });
        expect((await store.get('twice'))!.sourceLine).toBe(1);
      });

      it('settle() gives the whole summary before the commit; rollback then leaves nothing', async () => {
        await ingest(store, [row('kept', 1)]);
        const writer = await store.beginIngest();
        await writer.add([row('new-1', 2), row('kept', 3, { contentHash: 'changed' }), row('new-2', 4)]);
        await writer.recordManifests([{ path: '/m/rows.jsonl', bytes: 10, sha256: 'abc', rows: 3 }]);
        const summary = writer.settle ? await writer.settle() : writer.progress;
        expect(summary).toEqual({
          inserted: 2,
          unchanged: 0,
          replaced: 0,
          conflicts: [{ id: 'kept', file: 'manifest.jsonl', line: 3, journalFile: 'manifest.jsonl', journalLine: 1 }],
        });
        expect(writer.progress).toEqual(summary);
        expect(await writer.rollback()).toEqual(summary);
        expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 1 });
        expect(await store.get('new-1')).toBeUndefined();
        expect(await store.manifestRecords(['/m/rows.jsonl'])).toEqual(new Map());
      });

      it('a rolled-back first ingest leaves the journal empty, and the next ingest starts clean', async () => {
        const writer = await store.beginIngest();
        await writer.add(Array.from({ length: 300 }, (_, i) => row(`r${i}`, i + 1)));
        await writer.rollback();
        expect(await store.counts()).toEqual(zeroCounts());
        expect(await ingest(store, [row('r0', 1)])).toEqual({ inserted: 1, unchanged: 0, replaced: 0, conflicts: [] });
      });

      it('10,000 rows in batches: all inserted, read back in order in pages; a second ingest finds them unchanged', async () => {
        const rows = Array.from({ length: 10_000 }, (_, i) =>
          row(`row-${String(i).padStart(5, '0')}`, i + 1, { estimateUsd: 0.001 }),
        );
        expect(await ingest(store, rows)).toEqual({ inserted: 10_000, unchanged: 0, replaced: 0, conflicts: [] });
        const seen = await collect(store.iterate({}, 999));
        expect(seen.map((i) => i.id)).toEqual(rows.map((r) => r.id));
        expect(seen.every((item, i) => i === 0 || item.seq > seen[i - 1]!.seq)).toBe(true);
        const page1 = await store.list(['pending'], 100);
        const page2 = await store.list(['pending'], 100, page1[99]!.seq);
        expect(page1.map((i) => i.sourceLine)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
        expect(page2.map((i) => i.sourceLine)).toEqual(Array.from({ length: 100 }, (_, i) => i + 101));
        expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 10_000 });
        expect(await ingest(store, rows)).toEqual({ inserted: 0, unchanged: 10_000, replaced: 0, conflicts: [] });
      });

      it('records manifests with the rows, and answers only for the paths it has', async () => {
        await ingest(store, [row('a', 1)], [{ path: '/m/a.jsonl', bytes: 120, sha256: 'f00d', rows: 1 }]);
        expect(await store.manifestRecords(['/m/a.jsonl', '/m/other.jsonl'])).toEqual(
          new Map([['/m/a.jsonl', { bytes: 120, sha256: 'f00d', rows: 1 }]]),
        );
        await ingest(store, [row('a', 1)], [{ path: '/m/a.jsonl', bytes: 130, sha256: 'beef', rows: 2 }]);
        expect(await store.manifestRecords(['/m/a.jsonl'])).toEqual(
          new Map([['/m/a.jsonl', { bytes: 130, sha256: 'beef', rows: 2 }]]),
        );
      });

      it('priors tell what each id holds', async () => {
        await ingest(store, [row('a', 4), invalidRow('b', 5)]);
        expect(await store.priors(['a', 'b', 'none'])).toEqual(
          new Map([
            ['a', { content_hash: 'hash-of-a', state: 'pending', source_file: 'manifest.jsonl', source_line: 4 }],
            ['b', { content_hash: 'invalid:b:5', state: 'invalid', source_file: 'manifest.jsonl', source_line: 5 }],
          ]),
        );
        expect(await store.priors([])).toEqual(new Map());
      });
    });

    describe('transitions', () => {
      beforeEach(async () => {
        await ingest(store, [row('chat', 1), row('video', 2, { kind: 'video' }), row('third', 3), row('fourth', 4)]);
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

      it('the event log reads every transition of the job in seq order, in pages, with item, time and detail', async () => {
        await store.applyTransitions([submit('chat')]);
        clock.tick(7);
        await store.applyTransitions([
          submit('video', 0.5),
          { id: 'video', event: 'accept', patch: { taskId: 'task-1' }, detail: { taskId: 'task-1', attempt: 1 } },
        ]);
        clock.tick(3);
        await store.applyTransitions([
          { id: 'chat', event: 'retry', detail: { attempt: 1, delayMs: 50, status: 429 } },
        ]);
        const t0 = clock.now() - 10;
        const all = await collect(eventLog(store, 2));
        expect(all.map(({ seq: _seq, ...rest }) => rest)).toEqual([
          { itemId: 'chat', at: t0, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
          { itemId: 'video', at: t0 + 7, event: 'submit', from: 'pending', to: 'submitting', detail: { attempt: 1 } },
          {
            itemId: 'video',
            at: t0 + 7,
            event: 'accept',
            from: 'submitting',
            to: 'submitted',
            detail: { taskId: 'task-1', attempt: 1 },
          },
          {
            itemId: 'chat',
            at: t0 + 10,
            event: 'retry',
            from: 'submitting',
            to: 'pending',
            detail: { attempt: 1, delayMs: 50, status: 429 },
          },
        ]);
        const seqs = all.map((e) => e.seq);
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
        expect(new Set(seqs).size).toBe(4);
        expect(await store.eventLogPage(seqs[1]!, 1)).toEqual([all[2]]);
        expect(await store.eventLogPage(seqs[3]!, 10)).toEqual([]);
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

      it('counts every state and sums reserved and settled money, rounded to nano-dollars', async () => {
        await store.applyTransitions([submit('chat', 0.1), submit('third', 0.2), submit('video', 0.5)], {
          durability: 'relaxed',
        });
        await store.flush();
        expect(await store.spend()).toEqual({ reservedUsd: 0.8, actualUsd: 0 });
        await store.applyTransitions([
          { id: 'chat', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.07 } },
          { id: 'third', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.2 } },
        ]);
        expect(await store.spend()).toEqual({ reservedUsd: 0.5, actualUsd: 0.27 });
        expect(await store.counts()).toEqual({ ...zeroCounts(), pending: 1, submitting: 1, succeeded: 2 });
      });

      it('markStored moves many rows at once, and none when one of them is not succeeded', async () => {
        await store.applyTransitions([submit('chat'), submit('third'), submit('fourth')]);
        await store.applyTransitions(
          ['chat', 'third'].map((id) => ({ id, event: 'complete' as const, patch: { response: { ok: id } } })),
        );
        await expect(store.markStored(['chat', 'fourth', 'third'], 'r.jsonl', {})).rejects.toMatchObject({
          itemId: 'fourth',
          event: 'store',
        });
        expect((await store.get('chat'))!.state).toBe('succeeded');
        await store.markStored(['third', 'chat'], 'r.jsonl', { batch: 1 });
        expect((await store.list(['downloaded'])).map((i) => [i.id, i.outputPath])).toEqual([
          ['chat', 'r.jsonl'],
          ['third', 'r.jsonl'],
        ]);
        await store.markStored([], 'r.jsonl', {});
      });

      it('annotate patches fields, keeps the state, logs a note; an empty patch does nothing', async () => {
        await store.applyTransitions([submit('video', 0.5), { id: 'video', event: 'accept', patch: { taskId: 't' } }]);
        clock.tick(7);
        await store.annotate('video', { gatewayChargeUsd: 0.45 }, 'charge');
        await store.annotate('video', {}, 'nothing');
        expect((await store.get('video'))!).toMatchObject({
          state: 'submitted',
          gatewayChargeUsd: 0.45,
          updatedAt: clock.now(),
        });
        expect((await store.events('video')).slice(2)).toEqual([
          { at: clock.now(), event: 'charge', from: 'submitted', to: 'submitted', detail: null },
        ]);
        await expect(store.annotate('ghost', { gatewayChargeUsd: 1 }, 'charge')).rejects.toThrow(
          "unknown item 'ghost'",
        );
      });

      it('a fenced store writes nothing more', async () => {
        const reason = new Error('fenced for the test');
        store.fence(reason);
        await expect(store.applyTransitions([submit('chat')])).rejects.toBe(reason);
        await expect(store.markStored(['chat'], 'r', {})).rejects.toBe(reason);
        await expect(store.annotate('chat', { taskId: 'x' }, 'n')).rejects.toBe(reason);
        expect((await store.get('chat'))!.state).toBe('pending');
      });

      it('iterate filters by state and kind, in order', async () => {
        await store.applyTransitions([submit('third')]);
        expect((await collect(store.iterate({ states: ['pending'] }, 1))).map((i) => i.id)).toEqual([
          'chat',
          'video',
          'fourth',
        ]);
        expect((await collect(store.iterate({ kinds: ['video'] }))).map((i) => i.id)).toEqual(['video']);
        expect((await collect(store.iterate({ states: ['pending'], kinds: ['chat'] }, 2))).map((i) => i.id)).toEqual([
          'chat',
          'fourth',
        ]);
      });

      it('lastSubmitTimes gives each id its latest submit; abandonedWhileUncertain tells abandon-of-uncertain apart', async () => {
        await store.applyTransitions([
          submit('chat'),
          { id: 'chat', event: 'lose' },
          { id: 'chat', event: 'resubmit' },
        ]);
        clock.tick(100);
        await store.applyTransitions([submit('chat', 0.01, 2), submit('third')]);
        expect(await store.lastSubmitTimes(['chat', 'third', 'fourth'])).toEqual(
          new Map([
            ['chat', clock.now()],
            ['third', clock.now()],
          ]),
        );
        await store.applyTransitions([
          { id: 'chat', event: 'lose' },
          { id: 'chat', event: 'abandon' },
          { id: 'fourth', event: 'abandon' },
        ]);
        await store.applyTransitions([
          { id: 'third', event: 'lose' },
          { id: 'third', event: 'abandon' },
          { id: 'third', event: 'requeue' },
          { id: 'third', event: 'abandon' },
        ]);
        expect(await store.abandonedWhileUncertain(['chat', 'third', 'fourth'])).toEqual(new Set(['chat']));
        expect(await store.abandonedWhileUncertain([])).toEqual(new Set());
      });
    });

    describe('decideAndApply', () => {
      beforeEach(async () => {
        await ingest(store, [row('a', 1), row('b', 2)]);
        await store.applyTransitions([submit('a'), { id: 'a', event: 'lose' }]);
      });

      it('applies what decide chose from what it read, and returns its result', async () => {
        const result = await store.decideAndApply(async (reader) => {
          const item = await reader.get('a');
          const pending = await reader.list(['pending']);
          const all = await collect(reader.iterate({}));
          return {
            changes: [{ id: 'a', event: 'resubmit', expect: item!.state }],
            result: { saw: item!.state, pending: pending.length, all: all.length },
          };
        });
        expect(result).toEqual({ saw: 'uncertain', pending: 1, all: 2 });
        expect((await store.get('a'))!.state).toBe('pending');
      });

      it('applies all of the changes or none', async () => {
        await expect(
          store.decideAndApply(async () => ({
            changes: [
              { id: 'b', event: 'submit' },
              { id: 'a', event: 'finish' },
            ],
            result: 1,
          })),
        ).rejects.toBeInstanceOf(IllegalTransitionError);
        await expect(
          store.decideAndApply(async () => {
            throw new Error('decide failed');
          }),
        ).rejects.toThrow('decide failed');
        expect((await store.get('b'))!.state).toBe('pending');
        expect((await store.get('a'))!.state).toBe('uncertain');
        expect(await store.decideAndApply(async () => ({ changes: [], result: 'nothing' }))).toBe('nothing');
      });
    });

    describe('results', () => {
      beforeEach(async () => {
        await ingest(
          store,
          [1, 2, 3, 4, 5].map((n) => row(`c${n}`, n)).concat([row('v6', 6, { kind: 'video' }), row('c7', 7)]),
        );
      });

      const answer = (id: string, body: string): Change[] => [
        submit(id),
        { id, event: 'complete', patch: { response: { body }, responseStatus: 200 } },
      ];

      it('resultRows: rows with a line, after a seq, under a limit, cut at about maxBytes (at least one)', async () => {
        for (const id of ['c1', 'c2', 'c4', 'c5']) await store.applyTransitions(answer(id, 'x'.repeat(90)));
        await store.applyTransitions([
          submit('c3'),
          { id: 'c3', event: 'reject', patch: { lastError: { status: 400, message: 'bad' }, responseStatus: 400 } },
        ]);
        const all = await store.resultRows(0, 100, 1_000_000);
        expect(all.map((r) => r.id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
        expect(all[0]).toEqual({
          seq: all[0]!.seq,
          id: 'c1',
          kind: 'chat',
          state: 'succeeded',
          response: JSON.stringify({ body: 'x'.repeat(90) }),
          response_status: 200,
          request_id: null,
          last_error: null,
          task_id: null,
          final_resolution: null,
          output_path: null,
          sha256: null,
          bytes: null,
          meta: null,
        });
        expect(all[2]!.last_error).toBe(JSON.stringify({ status: 400, message: 'bad' }));
        const bodyLength = all[0]!.response!.length;
        expect((await store.resultRows(0, 100, bodyLength * 2 + 1)).map((r) => r.id)).toEqual(['c1', 'c2', 'c3']);
        expect((await store.resultRows(0, 100, 1)).map((r) => r.id)).toEqual(['c1']);
        expect((await store.resultRows(0, 2, 1_000_000)).map((r) => r.id)).toEqual(['c1', 'c2']);
        expect((await store.resultRows(all[1]!.seq, 100, 1_000_000)).map((r) => r.id)).toEqual(['c3', 'c4', 'c5']);
      });

      it("resultRows: a row's metadata as ingested (never part of its request); a replaced invalid row takes the new row's", async () => {
        await ingest(store, [
          row('m1', 11, { metaJson: '{"notes":"caf\\u00e9, $1","owner":"ana"}' }),
          invalidRow('m2', 12),
        ]);
        await ingest(store, [row('m2', 12, { contentHash: 'fixed', metaJson: '{"owner":"bo"}' })]);
        for (const id of ['m1', 'm2']) await store.applyTransitions(answer(id, 'z'));
        const rows = await store.resultRows(0, 100, 1_000_000);
        expect(rows.filter((r) => r.id.startsWith('m')).map((r) => [r.id, r.meta])).toEqual([
          ['m1', '{"notes":"caf\\u00e9, $1","owner":"ana"}'],
          ['m2', '{"owner":"bo"}'],
        ]);
        expect((await store.get('m1'))!.request).toEqual(row('m1', 11).request);
      });

      it('firstOpenSeq: the first row whose line may still appear; a succeeded video still waits for its file', async () => {
        const seqOf = async (id: string) => (await store.get(id))!.seq;
        expect(await store.firstOpenSeq()).toBe(await seqOf('c1'));
        for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c7']) await store.applyTransitions(answer(id, 'y'));
        expect(await store.firstOpenSeq()).toBe(await seqOf('v6'));
        await store.applyTransitions([
          submit('v6'),
          { id: 'v6', event: 'accept', patch: { taskId: 't' } },
          { id: 'v6', event: 'finish' },
        ]);
        expect(await store.firstOpenSeq()).toBe(await seqOf('v6'));
        await store.applyTransitions([{ id: 'v6', event: 'store' }]);
        expect(await store.firstOpenSeq()).toBeUndefined();
      });
    });

    operatorDecisions(() => ({ store, clock, harness }));

    describe('runs', () => {
      it('records each run start and end; lastRun is the latest; long messages are cut', async () => {
        const first = await store.recordRunStart();
        expect(await store.lastRun()).toEqual({
          id: first,
          pid: process.pid,
          host: hostname(),
          startedAt: clock.now(),
          endedAt: null,
          exitCode: null,
          stopReason: null,
          message: null,
        });
        clock.tick(50);
        await store.recordRunEnd(first, { exitCode: 0, stopReason: 'done', message: 'm'.repeat(1500) });
        expect(await store.lastRun()).toMatchObject({
          id: first,
          endedAt: clock.now(),
          exitCode: 0,
          stopReason: 'done',
          message: 'm'.repeat(1000),
        });
        const second = await store.recordRunStart();
        expect(second).toBeGreaterThan(first);
        expect(await store.lastRun()).toMatchObject({ id: second, endedAt: null });
      });
    });

    describe('report sums', () => {
      it('sums money, tokens and charges for the job and per model and resolution (invalid rows only in the total)', async () => {
        await ingest(store, [
          row('c1', 1, { estimateUsd: 0.02 }),
          row('c2', 2, { model: 'chat-large', estimateUsd: 0.03 }),
          row('c3', 3, { estimateUsd: 0.01 }),
          row('v1', 4, { kind: 'video', estimateUsd: 0.5 }),
          row('v2', 5, { kind: 'video', resolution: '1080p', estimateUsd: 1.25 }),
          invalidRow('bad', 6),
        ]);
        await store.applyTransitions([submit('c1', 0.02), submit('c2', 0.03), submit('v1', 0.5), submit('v2', 1.25)]);
        await store.applyTransitions([
          { id: 'c1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.025, totalTokens: 120 } },
          { id: 'c2', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.03, totalTokens: 80, unmetered: true } },
          { id: 'v1', event: 'accept', patch: { taskId: 't1' } },
        ]);
        await store.annotate('v1', { gatewayChargeUsd: 0.45 }, 'charge');
        const sums = await store.reportSums();
        expect(sums.total).toEqual({
          items: 6,
          settled: 2,
          estimated: sums.total.estimated,
          actual: 0.025 + 0.03,
          settled_estimated: 0.02 + 0.03,
          reserved: 1.75,
          over: sums.total.over,
          gateway: 0.45,
          gateway_n: 1,
          tokens: 200,
          unmetered: 1,
        });
        expect(sums.total.estimated).toBeCloseTo(1.81, 12);
        expect(sums.total.over).toBeCloseTo(0.005, 12);
        expect(sums.groups.map((g) => [g.model, g.resolution, g.items, g.settled, g.tokens, g.gateway_n])).toEqual([
          ['chat-large', null, 1, 1, 80, 0],
          ['chat-small', null, 2, 1, 120, 0],
          ['video-fast', '1080p', 1, 0, null, 0],
          ['video-fast', '720p', 1, 0, null, 1],
        ]);
        for (const value of Object.values(sums.total)) expect(['number', 'object']).toContain(typeof value);
      });
    });

    describe('model groups (the pricing check)', () => {
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
    });

    describe('cancel (gbatch cancel)', () => {
      const cancelRow = (id: string, expect?: ItemState): Change => ({
        id,
        event: 'cancel',
        patch: { reservedUsd: 0, lastError: { code: 'cancelled', message: 'cancelled by the operator' } },
        ...(expect ? { expect } : {}),
      });

      beforeEach(async () => {
        await store.saveJob({ name: harness.jobName(), manifest: 'rows.jsonl', options: {} });
      });

      it('keeps the first cancellation time, takes the latest reason, survives a save of the job, and lifts', async () => {
        expect(await store.jobCancel()).toBeUndefined();
        const first = (await store.setJobCancel('wrong prompts'))!;
        expect(first).toEqual({ at: expect.any(Number), reason: 'wrong prompts' });
        expect(await store.jobCancel()).toEqual(first);
        expect(await store.setJobCancel('still wrong')).toEqual({ at: first.at, reason: 'still wrong' });
        await store.saveJob({ name: harness.jobName(), manifest: 'rows2.jsonl', options: {} });
        expect(await store.jobCancel()).toEqual({ at: first.at, reason: 'still wrong' });
        expect(await store.setJobCancel(undefined)).toBeUndefined();
        expect(await store.jobCancel()).toBeUndefined();
      });

      it('refuses every submit while the job is cancelled, rolling its batch back; other moves go on; lifted, submits go through again', async () => {
        await ingest(store, [row('a', 1), row('b', 2), row('c', 3)]);
        await store.applyTransitions([submit('a')]);
        await store.setJobCancel('stop');
        const refused = await thrown(
          store.applyTransitions([
            { id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.002 } },
            submit('b'),
          ]),
        );
        expect(refused).toBeInstanceOf(JobCancelledError);
        expect(refused).toMatchObject({ code: 'GBATCH_JOB_CANCELLED', itemId: 'b' });
        expect((await store.get('a'))!.state).toBe('submitting');
        expect((await store.get('b'))!.state).toBe('pending');
        // A batch of compare-and-set changes alone (PostgreSQL writes it in one statement) is refused the same way.
        const alone = await thrown(
          store.applyTransitions([
            { ...submit('b'), expect: 'pending' },
            { ...submit('c'), expect: 'pending' },
          ]),
        );
        expect(alone).toMatchObject({ code: 'GBATCH_JOB_CANCELLED', itemId: 'b' });
        expect((await store.get('c'))!.state).toBe('pending');
        await store.applyTransitions([{ id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.002 } }]);
        expect((await store.get('a'))!.state).toBe('succeeded');
        await store.setJobCancel(undefined);
        await store.applyTransitions([submit('c')]);
        expect((await store.get('c'))!.state).toBe('submitting');
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

      it("a runner's acknowledgement shows on its row in runners()", async () => {
        await store.membership.acquire();
        expect((await store.membership.runners())[0]!.cancelSeenAt ?? null).toBeNull();
        const cancel = (await store.setJobCancel('stop'))!;
        await store.membership.acknowledgeCancel();
        expect((await store.membership.runners())[0]!.cancelSeenAt).toBeGreaterThanOrEqual(cancel.at);
        await store.membership.release();
      });
    });

    describe('membership', () => {
      const staleKnob = process.env.GBATCH_LOCK_STALE_MS;
      afterEach(() => {
        if (staleKnob === undefined) delete process.env.GBATCH_LOCK_STALE_MS;
        else process.env.GBATCH_LOCK_STALE_MS = staleKnob;
      });

      it('counts the rows a runner holds', async () => {
        await ingest(store, [row('a', 1), row('b', 2)]);
        await store.membership.acquire();
        await store.applyTransitions([submit('a')]);
        expect((await store.membership.runners()).map((r) => r.rows)).toEqual([1]);
      });

      // One runner per journal is SQLite's rule (its lock); a database takes many runners on one job
      // (test/journal/postgres/runners.test.ts).
      describe.runIf(harness.adapter === 'sqlite')('one runner per journal', () => {
        it('one live runner: the next is refused (busy), then joins once the first released', async () => {
          expect(await store.membership.acquire()).toBeUndefined();
          const second = await harness.open({ clock });
          const busy = await thrown(second.membership.acquire());
          expect(busy).toBeInstanceOf(JournalBusyError);
          expect(busy).toMatchObject({ code: 'GBATCH_JOURNAL_BUSY', pid: process.pid, host: hostname() });
          expect((busy as Error).message).toContain(`pid ${process.pid}`);
          const [runner] = await second.membership.runners();
          expect(runner).toMatchObject({
            pid: process.pid,
            host: hostname(),
            heartbeatAt: clock.now(),
            liveness: { alive: true, basis: 'pid-alive' },
          });
          expect(await store.membership.heartbeat()).toBe(true);
          await store.membership.release();
          expect(await second.membership.runners()).toEqual([]);
          expect(await second.membership.acquire()).toBeUndefined();
        });

        it('takes over from a runner on another host whose heartbeat is stale (GBATCH_LOCK_STALE_MS), not from a fresh one', async () => {
          process.env.GBATCH_LOCK_STALE_MS = '5000';
          const pid = await deadPid();
          await harness.plantRunner({ pid, host: 'other-host.example', heartbeatAt: clock.now() });
          await expect(store.membership.acquire()).rejects.toThrow(/other-host\.example/);
          expect((await store.membership.runners())[0]!.liveness).toEqual({
            alive: true,
            heartbeatAgeMs: 0,
            basis: 'heartbeat-fresh',
          });
          clock.tick(4999);
          await expect(store.membership.acquire()).rejects.toBeInstanceOf(JournalBusyError);
          clock.tick(1);
          expect((await store.membership.runners())[0]!.liveness).toEqual({
            alive: false,
            heartbeatAgeMs: 5000,
            basis: 'heartbeat-stale',
          });
          expect(await store.membership.acquire()).toEqual({
            pid,
            host: 'other-host.example',
            heartbeatAt: clock.now() - 5000,
          });
          expect((await store.membership.runners()).map((r) => r.pid)).toEqual([process.pid]);
        });

        it('takes over from a dead pid on this host at once; the runner taken over loses its standing and writes nothing', async () => {
          await ingest(store, [row('a', 1)]);
          const pid = await deadPid();
          await harness.plantRunner({ pid, host: hostname(), heartbeatAt: clock.now() });
          expect(await store.membership.acquire()).toEqual({ pid, host: hostname(), heartbeatAt: clock.now() });

          // This process's runner seen from elsewhere as gone (its start time no longer matches): taken over.
          const old = store;
          await harness.plantRunner({
            pid: process.pid,
            host: hostname(),
            heartbeatAt: clock.now(),
            processStart: 'another-boot/1',
          });
          const next = await harness.open({ clock });
          expect(await next.membership.acquire()).toMatchObject({ pid: process.pid, host: hostname() });
          expect(await old.membership.heartbeat()).toBe(false);
          await expect(old.applyTransitions([submit('a')])).rejects.toBeInstanceOf(LockLostError);
          await expect(old.applyTransitions([submit('a')])).rejects.toBeInstanceOf(LockLostError);
          old.membership.forget();
          await old.membership.release();
          expect(await next.membership.runners()).toHaveLength(1);
          expect((await next.get('a'))!.state).toBe('pending');
          await next.applyTransitions([submit('a')]);
        });
      });
    });
  });
}
