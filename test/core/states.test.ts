import { describe, expect, it } from 'vitest';
import {
  canTransition,
  fromStates,
  IllegalTransitionError,
  isTerminal,
  ITEM_EVENTS,
  ITEM_STATES,
  TERMINAL,
  transition,
  type ItemEvent,
  type ItemState,
} from '../../src/core/states.js';

// The legal moves, written out from the runner contract independently of src/core/states.ts:
// for each state, the events it accepts and where they lead. Every pair not listed must throw.
const EXPECTED: Record<ItemState, Partial<Record<ItemEvent, ItemState>>> = {
  pending: { submit: 'submitting', defer: 'deferred', abandon: 'failed', cancel: 'cancelled' },
  submitting: {
    accept: 'submitted',
    complete: 'succeeded',
    retry: 'pending',
    reject: 'rejected',
    defer: 'deferred',
    lose: 'uncertain',
    oversize: 'failed',
  },
  submitted: { progress: 'running', finish: 'succeeded', fail: 'failed', vanish: 'uncertain', detach: 'uncertain' },
  running: { progress: 'running', finish: 'succeeded', fail: 'failed', vanish: 'uncertain', detach: 'uncertain' },
  succeeded: { store: 'downloaded', forfeit: 'failed', detach: 'uncertain' },
  downloaded: { detach: 'uncertain' },
  failed: { requeue: 'pending', unreserve: 'failed', detach: 'uncertain' },
  rejected: { requeue: 'pending' },
  invalid: {},
  uncertain: { attach: 'submitted', adopt: 'succeeded', resubmit: 'pending', abandon: 'failed' },
  deferred: { release: 'pending', abandon: 'failed', cancel: 'cancelled' },
  cancelled: { requeue: 'pending' },
};

const EVENTS: ItemEvent[] = [
  'submit',
  'accept',
  'complete',
  'retry',
  'reject',
  'defer',
  'lose',
  'progress',
  'finish',
  'fail',
  'store',
  'attach',
  'resubmit',
  'abandon',
  'release',
  'requeue',
  'oversize',
  'cancel',
  'unreserve',
  'detach',
  'vanish',
  'adopt',
  'forfeit',
];

const pairs = ITEM_STATES.flatMap((state) =>
  EVENTS.map((event) => ({ state, event, next: EXPECTED[state][event] ?? ('illegal' as const) })),
);

describe('transition table', () => {
  it('knows exactly the states and events this test covers', () => {
    expect([...ITEM_STATES].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect([...ITEM_EVENTS].sort()).toEqual([...EVENTS].sort());
    expect(pairs).toHaveLength(12 * 23);
  });

  it.each(pairs)('$state --$event--> $next', ({ state, event, next }) => {
    if (next === 'illegal') {
      expect(canTransition(state, event)).toBe(false);
      let thrown: unknown;
      try {
        transition(state, event);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(IllegalTransitionError);
      expect(thrown).toMatchObject({ from: state, event, code: 'GBATCH_ILLEGAL_TRANSITION' });
      expect((thrown as Error).message).toContain(state);
    } else {
      expect(canTransition(state, event)).toBe(true);
      expect(transition(state, event)).toBe(next);
    }
  });

  it('fromStates lists, for each event, exactly the states it is legal in', () => {
    for (const event of EVENTS) {
      const expected = ITEM_STATES.filter((state) => EXPECTED[state][event] !== undefined).sort();
      expect([...fromStates(event)].sort(), event).toEqual(expected);
    }
  });
});

describe('terminal states', () => {
  it('are downloaded, failed, rejected, invalid and cancelled', () => {
    expect([...TERMINAL].sort()).toEqual(['cancelled', 'downloaded', 'failed', 'invalid', 'rejected']);
    for (const state of ITEM_STATES) expect(isTerminal(state), state).toBe(TERMINAL.has(state));
  });

  it("accept no event but the operator's: requeue (failed, rejected, cancelled), unreserve (failed), detach (downloaded, failed)", () => {
    for (const state of TERMINAL) {
      for (const event of EVENTS) {
        const operator =
          (event === 'requeue' && (state === 'failed' || state === 'rejected' || state === 'cancelled')) ||
          (event === 'unreserve' && state === 'failed') ||
          (event === 'detach' && (state === 'downloaded' || state === 'failed'));
        expect(canTransition(state, event), `${state} ${event}`).toBe(operator);
      }
    }
  });

  it('leave uncertain and deferred to an operator or a later run', () => {
    expect(isTerminal('uncertain')).toBe(false);
    expect(isTerminal('deferred')).toBe(false);
  });
});
