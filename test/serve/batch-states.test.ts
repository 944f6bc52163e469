// The batch lifecycle table, every status against every move: where each move may leave from, where it goes,
// what it writes, and that a final status never moves.
import { describe, expect, it } from 'vitest';
import {
  BATCH_MOVES,
  BATCH_STATUSES,
  ENDED_WITH_FILES,
  ENDING_MOVE,
  hasFiles,
  IllegalBatchMove,
  isFinal,
  isLive,
  isRunning,
  moved,
  type BatchMove,
  type BatchStatus,
} from '../../src/serve/batch-states.js';

const AT = 1_800_000_000;
interface Fields {
  cancelling_at: number | null;
  finalizing_at: number | null;
  model?: string;
}
const batch = (status: BatchStatus, cancelled = false): { id: string; status: BatchStatus; fields: Fields } => ({
  id: 'batch_1',
  status,
  fields: { cancelling_at: cancelled ? AT - 5 : null, finalizing_at: status === 'finalizing' ? AT - 1 : null },
});

/** Every legal move, written out: status -> move -> the status it ends in. */
const LEGAL: Record<BatchStatus, Partial<Record<BatchMove, BatchStatus>>> = {
  validating: { validate: 'in_progress', refuse: 'failed', cancel: 'cancelling' },
  in_progress: { cancel: 'cancelling', finalize: 'finalizing' },
  cancelling: { finalize: 'finalizing' },
  finalizing: { reopen: 'in_progress', complete: 'completed', expire: 'expired', end_cancelled: 'cancelled' },
  failed: {},
  completed: {},
  expired: {},
  cancelled: {},
};

describe('the batch lifecycle', () => {
  it('allows exactly the moves of the table, each to its status, and refuses every other', () => {
    for (const status of BATCH_STATUSES) {
      for (const move of Object.keys(BATCH_MOVES) as BatchMove[]) {
        const to = LEGAL[status][move];
        if (to === undefined) {
          expect(() => moved(batch(status), move, AT), `${status} ${move}`).toThrow(IllegalBatchMove);
          continue;
        }
        const next = moved(batch(status), move, AT);
        expect({ status, move, to: next.batch.status, from: next.from }).toEqual({
          status,
          move,
          to,
          from: expect.arrayContaining([status]),
        });
      }
    }
  });

  it("stamps each move's time, clears finalizing_at on a reopen, and writes the fields it is given", () => {
    expect(moved(batch('validating'), 'validate', AT, { model: 'm' }).batch.fields).toMatchObject({
      in_progress_at: AT,
      model: 'm',
    });
    expect(moved(batch('validating'), 'refuse', AT).batch.fields).toMatchObject({ failed_at: AT });
    expect(moved(batch('in_progress'), 'cancel', AT).batch.fields).toMatchObject({ cancelling_at: AT });
    expect(moved(batch('in_progress'), 'finalize', AT).batch.fields).toMatchObject({ finalizing_at: AT });
    expect(moved(batch('finalizing'), 'reopen', AT).batch.fields.finalizing_at).toBeNull();
    for (const [end, move] of Object.entries(ENDING_MOVE))
      expect(moved(batch('finalizing'), move, AT).batch).toMatchObject({ status: end, fields: { [`${end}_at`]: AT } });
  });

  it('reopens a cancelled batch as cancelling: a cancel is never undone', () => {
    expect(moved(batch('finalizing', true), 'reopen', AT).batch.status).toBe('cancelling');
    expect(moved(batch('finalizing', false), 'reopen', AT).batch.status).toBe('in_progress');
  });

  it('names the live, running, final and file-bearing statuses consistently with the moves', () => {
    const leaves = (status: BatchStatus) => Object.keys(LEGAL[status]).length > 0;
    for (const status of BATCH_STATUSES) {
      expect({ status, live: isLive(status) }).toEqual({ status, live: leaves(status) });
      expect(isFinal(status)).toBe(!isLive(status));
      expect(hasFiles(status)).toBe((ENDED_WITH_FILES as readonly string[]).includes(status));
      expect(isRunning(status)).toBe(status === 'in_progress' || status === 'cancelling');
    }
    expect(ENDED_WITH_FILES.every(isFinal)).toBe(true);
    expect(hasFiles('failed')).toBe(false);
  });
});
