import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { EXIT, exitCodeFor } from '../../src/pipeline/exit-code.js';

function counts(some: Partial<Record<ItemState, number>>): Record<ItemState, number> {
  return { ...Object.fromEntries(ITEM_STATES.map((s) => [s, 0])), ...some } as Record<ItemState, number>;
}

describe('exitCodeFor', () => {
  it("uses the contract's numbers", () => {
    expect(EXIT).toEqual({ ok: 0, someFailed: 1, usage: 2, budget: 3, uncertain: 4, inFlight: 75 });
  });

  const table: Array<[string, Partial<Record<ItemState, number>>, boolean, number]> = [
    ['nothing at all', {}, false, 0],
    ['everything downloaded', { downloaded: 5 }, false, 0],
    ['downloaded + failed', { downloaded: 3, failed: 1 }, false, 1],
    ['downloaded + rejected', { downloaded: 3, rejected: 1 }, false, 1],
    ['downloaded + invalid (--skip-invalid)', { downloaded: 3, invalid: 1 }, false, 1],
    ['uncertain beats everything', { uncertain: 1, deferred: 2, pending: 3, running: 1, failed: 4 }, true, 4],
    ['deferred beats in-flight and failures', { deferred: 1, pending: 2, submitted: 1, failed: 1 }, false, 3],
    ['pending left (retries exhausted) beats failures', { pending: 1, failed: 2, downloaded: 1 }, true, 75],
    ['submitting left', { submitting: 1 }, false, 75],
    ['submitted (--no-wait)', { submitted: 2, downloaded: 1 }, true, 75],
    ['running (deadline)', { running: 1, rejected: 1 }, true, 75],
    ['succeeded but not yet on disk', { succeeded: 1 }, false, 75],
    ['stopped early with nothing left to do: all done', { downloaded: 2 }, true, 0],
    ['stopped early with nothing left to do but a failure', { downloaded: 2, failed: 1 }, true, 1],
  ];

  it.each(table)('%s -> %i', (_name, some, stoppedEarly, code) => {
    expect(exitCodeFor({ counts: counts(some), stoppedEarly })).toBe(code);
  });
});
