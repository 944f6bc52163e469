// The job's cancellation by the operator, and the submits it refuses.
import { beforeEach, expect, it, describe } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { JobCancelledError, type JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, thrown, type Harness } from '../harness.js';

export function setJobCancelConformance(label: string, harness: Harness): void {
  describe(`setJobCancel and jobCancel: ${label}`, () => {
    let store: JournalStore;
    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
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
  });
}
