// What a runner that lost its standing received from the gateway: noted in the event log where the journal takes
// notes after loss (capabilities.notesAfterLoss), no row moved; refused where it cannot.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import { ingest, row, submit, type Harness } from '../harness.js';

export function noteUnrecordedConformance(label: string, harness: Harness): void {
  describe(`noteUnrecordedTasks and noteUnrecordedAnswers: ${label}`, () => {
    let store: JournalStore;

    beforeEach(async () => {
      store = await harness.open({ clock: new ManualClock(1_700_000_000_000) });
      await ingest(store, [row('v', 1, { kind: 'video' }), row('c', 2)]);
      await store.applyTransitions([submit('v', 0.5), submit('c')]);
    });

    it('notes each task id and answer in the event log and moves no row, or refuses without notesAfterLoss', async () => {
      const tasks = store.noteUnrecordedTasks([{ id: 'v', taskId: 'task-lost' }]);
      const answers = store.noteUnrecordedAnswers([{ id: 'c', attempt: 1, answer: { text: 'kept' } }]);
      if (!store.capabilities.notesAfterLoss) {
        await expect(tasks).rejects.toThrow(/notesAfterLoss/);
        await expect(answers).rejects.toThrow(/notesAfterLoss/);
        expect((await store.events('v')).map((e) => e.event)).toEqual(['submit']);
        return;
      }
      await tasks;
      await answers;
      expect((await store.events('v')).at(-1)).toMatchObject({
        event: 'task-unrecorded',
        detail: expect.objectContaining({ taskId: 'task-lost' }),
      });
      expect((await store.events('c')).at(-1)).toMatchObject({
        event: 'answer-unrecorded',
        detail: expect.objectContaining({ attempt: 1, answer: { text: 'kept' } }),
      });
      expect((await store.get('v'))!).toMatchObject({ state: 'submitting', taskId: null });
      expect((await store.get('c'))!.state).toBe('submitting');
    });
  });
}
