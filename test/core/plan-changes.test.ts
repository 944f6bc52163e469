// The one write rule every journal applies: rows, owners, events, money and intent of a batch, planned
// from the rows' heads without a database.
import { describe, expect, it } from 'vitest';
import {
  HELD_STATES,
  overBudget,
  ownerAfter,
  planChanges,
  planNote,
  planOnExpected,
  type PlannableChange,
  type RowHead,
} from '../../src/core/plan-changes.js';
import { StaleTransitionError } from '../../src/core/stale-transition.js';
import {
  IllegalTransitionError,
  ITEM_EVENTS,
  ITEM_STATES,
  type ItemEvent,
  type ItemState,
} from '../../src/core/states.js';

const RUNNER = '00000000-0000-4000-8000-000000000001';
const at = { runner: RUNNER, now: 1_700_000_000_000 };
const operator = { runner: undefined, now: 5 };

function heads(...rows: Array<[string, ItemState, number?, (number | null)?]>): Map<string, RowHead> {
  return new Map(rows.map(([id, state, reservedUsd = 0, actualUsd = null]) => [id, { state, reservedUsd, actualUsd }]));
}

function refusal(plan: () => unknown): unknown {
  try {
    plan();
  } catch (err) {
    return err;
  }
  throw new Error('the plan was not refused');
}

describe('planChanges: the row each transition writes', () => {
  // Every legal pair of the state machine, written out: the planner must follow it, and nothing else.
  const legal: Array<[ItemEvent, ItemState, ItemState]> = [
    ['submit', 'pending', 'submitting'],
    ['accept', 'submitting', 'submitted'],
    ['complete', 'submitting', 'succeeded'],
    ['retry', 'submitting', 'pending'],
    ['reject', 'submitting', 'rejected'],
    ['defer', 'pending', 'deferred'],
    ['defer', 'submitting', 'deferred'],
    ['lose', 'submitting', 'uncertain'],
    ['oversize', 'submitting', 'failed'],
    ['progress', 'submitted', 'running'],
    ['progress', 'running', 'running'],
    ['finish', 'submitted', 'succeeded'],
    ['finish', 'running', 'succeeded'],
    ['fail', 'submitted', 'failed'],
    ['fail', 'running', 'failed'],
    ['vanish', 'submitted', 'uncertain'],
    ['vanish', 'running', 'uncertain'],
    ['store', 'succeeded', 'downloaded'],
    ['forfeit', 'succeeded', 'failed'],
    ['attach', 'uncertain', 'submitted'],
    ['adopt', 'uncertain', 'succeeded'],
    ['resubmit', 'uncertain', 'pending'],
    ['abandon', 'uncertain', 'failed'],
    ['abandon', 'deferred', 'failed'],
    ['abandon', 'pending', 'failed'],
    ['unreserve', 'failed', 'failed'],
    ['detach', 'submitted', 'uncertain'],
    ['detach', 'running', 'uncertain'],
    ['detach', 'succeeded', 'uncertain'],
    ['detach', 'downloaded', 'uncertain'],
    ['detach', 'failed', 'uncertain'],
    ['release', 'deferred', 'pending'],
    ['requeue', 'failed', 'pending'],
    ['requeue', 'rejected', 'pending'],
    ['requeue', 'cancelled', 'pending'],
    ['cancel', 'pending', 'cancelled'],
    ['cancel', 'deferred', 'cancelled'],
  ];

  it.each(legal)(
    '%s from %s: the row goes to %s, its event logged, the runner owning it only in a held state',
    (event, from, to) => {
      const plan = planChanges(heads(['a', from]), [{ id: 'a', event, detail: { n: 1 } }], at);
      expect(plan.rows).toEqual([
        {
          change: { id: 'a', event, detail: { n: 1 } },
          from,
          to,
          owner: HELD_STATES.includes(to) ? RUNNER : null,
          money: {},
        },
      ]);
      expect(plan.events).toEqual([{ itemId: 'a', at: at.now, event, from, to, detail: '{"n":1}' }]);
    },
  );

  it('refuses every pair the state machine does not list, before planning anything', () => {
    const listed = new Set(legal.map(([event, from]) => `${event}:${from}`));
    let refused = 0;
    for (const event of ITEM_EVENTS) {
      for (const from of ITEM_STATES) {
        if (listed.has(`${event}:${from}`)) continue;
        const err = refusal(() =>
          planChanges(
            heads(['ok', 'pending'], ['a', from]),
            [
              { id: 'ok', event: 'submit' },
              { id: 'a', event },
            ],
            at,
          ),
        );
        expect(err).toBeInstanceOf(IllegalTransitionError);
        expect(err).toMatchObject({ from, event });
        refused++;
      }
    }
    expect(refused).toBe(ITEM_EVENTS.length * ITEM_STATES.length - legal.length);
  });

  it("an operator (no runner) owns nothing: every row it writes is no one's", () => {
    const plan = planChanges(
      heads(['u', 'uncertain'], ['v', 'uncertain']),
      [
        { id: 'u', event: 'attach', patch: { reservedUsd: 0.5 } },
        { id: 'v', event: 'adopt' },
      ],
      operator,
    );
    expect(plan.rows.map((r) => [r.to, r.owner])).toEqual([
      ['submitted', null],
      ['succeeded', null],
    ]);
  });

  it('ownerAfter: the runner in a held state, no one anywhere else', () => {
    for (const state of ITEM_STATES)
      expect(ownerAfter(state, RUNNER)).toBe(HELD_STATES.includes(state) ? RUNNER : null);
    expect(HELD_STATES).toEqual(['submitting', 'submitted', 'running', 'succeeded']);
  });

  it('a detail-less change logs a null detail; events keep batch order', () => {
    const plan = planChanges(
      heads(['b', 'pending'], ['a', 'pending']),
      [
        { id: 'b', event: 'submit' },
        { id: 'a', event: 'cancel', detail: { by: 'runner' } },
      ],
      at,
    );
    expect(plan.events.map((e) => [e.itemId, e.event, e.detail])).toEqual([
      ['b', 'submit', null],
      ['a', 'cancel', '{"by":"runner"}'],
    ]);
  });
});

describe('planChanges: the money a batch moves', () => {
  it("a submit reserves: the job's reservation rises by the bound and the batch asks the budget", () => {
    const plan = planChanges(heads(['a', 'pending']), [{ id: 'a', event: 'submit', patch: { reservedUsd: 0.25 } }], at);
    expect(plan.money).toEqual({ reservedUsd: 0.25, actualUsd: 0, reservingId: 'a' });
  });

  it('a completion settles: the reservation released, the charge booked, no budget asked', () => {
    const plan = planChanges(
      heads(['a', 'submitting', 0.25]),
      [{ id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.1 } }],
      at,
    );
    expect(plan.money).toEqual({ reservedUsd: -0.25, actualUsd: 0.1, reservingId: undefined });
  });

  it('an overrun (charged past the bound) is booked whatever the budget: only a rising reservation asks it', () => {
    const plan = planChanges(
      heads(['a', 'submitting', 0.25]),
      [{ id: 'a', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.4 } }],
      at,
    );
    expect(plan.money.reservingId).toBeUndefined();
    expect(plan.money.actualUsd).toBe(0.4);
  });

  it('a lowered reservation (an attach for less) releases without asking the budget; an equal one moves nothing', () => {
    const lower = planChanges(
      heads(['a', 'uncertain', 0.5]),
      [{ id: 'a', event: 'attach', patch: { reservedUsd: 0.2 } }],
      operator,
    );
    expect(lower.money).toEqual({ reservedUsd: -0.3, actualUsd: 0, reservingId: undefined });
    const equal = planChanges(
      heads(['a', 'uncertain', 0.5]),
      [{ id: 'a', event: 'attach', patch: { reservedUsd: 0.5 } }],
      operator,
    );
    expect(equal.money).toEqual({ reservedUsd: 0, actualUsd: 0, reservingId: undefined });
  });

  it('the first row that reserves more is named, not a later one', () => {
    const plan = planChanges(
      heads(['a', 'submitting', 0.3], ['b', 'pending'], ['c', 'pending']),
      [
        { id: 'a', event: 'retry', patch: { reservedUsd: 0 } },
        { id: 'b', event: 'submit', patch: { reservedUsd: 0.1 } },
        { id: 'c', event: 'submit', patch: { reservedUsd: 0.2 } },
      ],
      at,
    );
    expect(plan.money.reservingId).toBe('b');
    expect(plan.money.reservedUsd).toBeCloseTo(0, 12);
  });

  it('a null charge counts as nothing: clearing a settled charge takes it off the job', () => {
    const booked = planChanges(
      heads(['a', 'failed', 0, 0.3]),
      [{ id: 'a', event: 'detach', patch: { actualUsd: null, reservedUsd: 0.3 } }],
      operator,
    );
    expect(booked.money).toEqual({ reservedUsd: 0.3, actualUsd: -0.3, reservingId: 'a' });
    const unbooked = planChanges(
      heads(['a', 'submitting', 0.3, null]),
      [{ id: 'a', event: 'oversize', patch: { actualUsd: 0.3, reservedUsd: 0 } }],
      at,
    );
    expect(unbooked.money).toEqual({ reservedUsd: -0.3, actualUsd: 0.3, reservingId: undefined });
  });

  it("an unreserve releases an abandoned row's bound; fields the patch leaves out move no money", () => {
    const plan = planChanges(
      heads(['a', 'failed', 0.7, 0]),
      [{ id: 'a', event: 'unreserve', patch: { reservedUsd: 0 } }],
      operator,
    );
    expect(plan.money).toEqual({ reservedUsd: -0.7, actualUsd: 0, reservingId: undefined });
    const none = planChanges(heads(['a', 'submitted', 0.7, null]), [{ id: 'a', event: 'progress', patch: {} }], at);
    expect(none.money).toEqual({ reservedUsd: 0, actualUsd: 0, reservingId: undefined });
  });

  it('sums in batch order, unrounded (the adapters round where they always did)', () => {
    const plan = planChanges(
      heads(['a', 'pending'], ['b', 'pending']),
      [
        { id: 'a', event: 'submit', patch: { reservedUsd: 0.1 } },
        { id: 'b', event: 'submit', patch: { reservedUsd: 0.2 } },
      ],
      at,
    );
    expect(plan.money.reservedUsd).toBe(0.1 + 0.2);
  });

  it('a row changed twice is judged on the state and money the first change left it with', () => {
    const plan = planChanges(
      heads(['a', 'pending']),
      [
        { id: 'a', event: 'submit', patch: { reservedUsd: 0.4 } },
        { id: 'a', event: 'complete', expect: 'submitting', patch: { reservedUsd: 0, actualUsd: 0.3 } },
      ],
      at,
    );
    expect(plan.rows.map((r) => [r.from, r.to, r.owner])).toEqual([
      ['pending', 'submitting', RUNNER],
      ['submitting', 'succeeded', RUNNER],
    ]);
    expect(plan.money).toEqual({ reservedUsd: 0, actualUsd: 0.3, reservingId: 'a' });
  });
});

describe('planChanges: an attempt that may have been billed keeps its booking', () => {
  const carried = (state: ItemState, reservedUsd: number, actualUsd: number | null, carriedUsd = 0) =>
    new Map<string, RowHead>([['a', { state, reservedUsd, actualUsd, carriedUsd }]]);

  it('resubmit: the uncertain bound becomes the carried booking; nothing moves off the job', () => {
    const plan = planChanges(
      carried('uncertain', 2.5, null),
      [{ id: 'a', event: 'resubmit', patch: { reservedUsd: 0 } }],
      operator,
    );
    expect(plan.rows[0]!.money).toEqual({ carriedUsd: 2.5, reservedUsd: 2.5, actualUsd: null });
    expect(plan.money).toEqual({ reservedUsd: 0, actualUsd: 0, reservingId: undefined });
  });

  it("requeue: a billed answer's charge (an oversize answer) moves into the carried booking", () => {
    const plan = planChanges(
      carried('failed', 0, 0.04),
      [{ id: 'a', event: 'requeue', patch: { reservedUsd: 0, actualUsd: null } }],
      operator,
    );
    expect(plan.rows[0]!.money).toEqual({ carriedUsd: 0.04, reservedUsd: 0.04, actualUsd: null });
    expect(plan.money).toEqual({ reservedUsd: 0.04, actualUsd: -0.04, reservingId: undefined });
  });

  it('requeue of a refunded failure or a refusal carries nothing more than the row had', () => {
    const plan = planChanges(
      carried('failed', 1, null, 1),
      [{ id: 'a', event: 'requeue', patch: { reservedUsd: 0 } }],
      operator,
    );
    expect(plan.rows[0]!.money).toEqual({ reservedUsd: 1 });
    expect(plan.money.reservedUsd).toBe(0);
  });

  it("a later attempt's reservation and settlement are stored on top of the carried booking", () => {
    const plan = planChanges(
      carried('pending', 2.5, null, 2.5),
      [
        { id: 'a', event: 'submit', patch: { reservedUsd: 2.5 } },
        { id: 'a', event: 'accept' },
        { id: 'a', event: 'finish', patch: { reservedUsd: 0, actualUsd: 2.1 } },
      ],
      at,
    );
    expect(plan.rows.map((r) => r.money)).toEqual([{ reservedUsd: 5 }, {}, { reservedUsd: 2.5, actualUsd: 2.1 }]);
    expect(plan.money).toEqual({ reservedUsd: 0, actualUsd: 2.1, reservingId: 'a' });
  });

  it('a resend the operator says was not billed carries nothing of that attempt, and keeps what earlier ones carry', () => {
    const plan = planChanges(
      carried('uncertain', 5, null, 2.5),
      [{ id: 'a', event: 'resubmit', notBilled: true, patch: { reservedUsd: 0 } }],
      operator,
    );
    expect(plan.rows[0]!.money).toEqual({ reservedUsd: 2.5 });
    expect(plan.money).toEqual({ reservedUsd: -2.5, actualUsd: 0, reservingId: undefined });
  });

  it('a second resend adds the next lost bound to what is carried', () => {
    const plan = planChanges(carried('uncertain', 5, null, 2.5), [{ id: 'a', event: 'resubmit' }], operator);
    expect(plan.rows[0]!.money).toEqual({ carriedUsd: 5, reservedUsd: 5, actualUsd: null });
  });

  it('refuses a change that sets the carried booking, and a resend planned without the row', () => {
    expect(() =>
      planChanges(carried('uncertain', 2.5, null), [{ id: 'a', event: 'abandon', patch: { carriedUsd: 0 } }], operator),
    ).toThrow(/carried booking is the planner's alone/);
    expect(() => planOnExpected([{ id: 'a', event: 'resubmit', expect: 'uncertain' }], operator)).toThrow(
      /planned on its head/,
    );
  });
});

describe('planChanges: refusals, before anything is written', () => {
  it('a row no longer in the state its change expects is stale, naming where it is now', () => {
    const err = refusal(() =>
      planChanges(
        heads(['a', 'pending'], ['b', 'uncertain']),
        [
          { id: 'a', event: 'submit', expect: 'pending' },
          { id: 'b', event: 'lose', expect: 'submitting' },
        ],
        at,
      ),
    );
    expect(err).toBeInstanceOf(StaleTransitionError);
    expect(err).toMatchObject({ itemId: 'b', event: 'lose', expected: 'submitting', actual: 'uncertain' });
  });

  it('a stale expect is told before an illegal move (someone else decided, not a bug)', () => {
    const err = refusal(() =>
      planChanges(heads(['a', 'downloaded']), [{ id: 'a', event: 'lose', expect: 'submitting' }], at),
    );
    expect(err).toBeInstanceOf(StaleTransitionError);
  });

  it('the second change of a row expecting the state before the first is stale', () => {
    const err = refusal(() =>
      planChanges(
        heads(['a', 'pending']),
        [
          { id: 'a', event: 'submit' },
          { id: 'a', event: 'cancel', expect: 'pending' },
        ],
        at,
      ),
    );
    expect(err).toMatchObject({ itemId: 'a', expected: 'pending', actual: 'submitting' });
  });

  it('an unknown item is an error, not a stale row', () => {
    const err = refusal(() =>
      planChanges(
        heads(['a', 'pending']),
        [
          { id: 'a', event: 'submit' },
          { id: 'nope', event: 'submit', expect: 'pending' },
        ],
        at,
      ),
    );
    expect(err).not.toBeInstanceOf(StaleTransitionError);
    expect((err as Error).message).toBe("unknown item 'nope'");
  });
});

describe('planChanges: the intent', () => {
  it('names the first submit of the batch', () => {
    const plan = planChanges(
      heads(['a', 'submitting'], ['b', 'pending'], ['c', 'pending']),
      [
        { id: 'a', event: 'accept' },
        { id: 'b', event: 'submit' },
        { id: 'c', event: 'submit' },
      ],
      at,
    );
    expect(plan.intentId).toBe('b');
  });

  it('a batch without a submit holds no intent (a cancel, a retry, a settlement go through a cancelled job)', () => {
    const plan = planChanges(
      heads(['a', 'pending'], ['b', 'submitting']),
      [
        { id: 'a', event: 'cancel' },
        { id: 'b', event: 'retry' },
      ],
      at,
    );
    expect(plan.intentId).toBeUndefined();
  });
});

describe('planOnExpected: a batch planned without reading its rows', () => {
  it("plans each row from the state its change expects, with no money (the write knows the rows')", () => {
    const changes: PlannableChange[] = [
      { id: 'a', event: 'submit', expect: 'pending', patch: { reservedUsd: 0.1 } },
      { id: 'b', event: 'finish', expect: 'running', detail: { task: 't' } },
    ];
    const plan = planOnExpected(changes, at);
    expect(plan).not.toHaveProperty('money');
    expect(plan.rows.map((r) => [r.change.id, r.from, r.to, r.owner])).toEqual([
      ['a', 'pending', 'submitting', RUNNER],
      ['b', 'running', 'succeeded', RUNNER],
    ]);
    expect(plan.events.map((e) => e.detail)).toEqual([null, '{"task":"t"}']);
    expect(plan.intentId).toBe('a');
  });

  it('refuses a change without an expected state, a row named twice, and an illegal move', () => {
    expect(() => planOnExpected([{ id: 'a', event: 'submit' }], at)).toThrow(/must name it/);
    expect(() =>
      planOnExpected(
        [
          { id: 'a', event: 'submit', expect: 'pending' },
          { id: 'a', event: 'complete', expect: 'submitting' },
        ],
        at,
      ),
    ).toThrow(/named twice/);
    expect(() => planOnExpected([{ id: 'a', event: 'store', expect: 'pending' }], at)).toThrow(IllegalTransitionError);
  });
});

describe('planNote: fields patched without a move', () => {
  it('keeps the state and the owner, logs the note by name, and moves money by the rule of a move', () => {
    const rows = new Map<string, RowHead>([
      ['v', { state: 'submitted', reservedUsd: 0.75, actualUsd: null, carriedUsd: 0.25 }],
    ]);
    const plan = planNote(rows, { id: 'v', note: 'charge', patch: { actualUsd: 0.5 } }, at);
    expect(plan.rows).toEqual([
      {
        change: expect.objectContaining({ id: 'v' }),
        from: 'submitted',
        to: 'submitted',
        owner: undefined,
        money: { actualUsd: 0.5 },
      },
    ]);
    expect(plan.events).toEqual([
      { itemId: 'v', at: at.now, event: 'charge', from: 'submitted', to: 'submitted', detail: null },
    ]);
    expect(plan.money).toEqual({ reservedUsd: 0, actualUsd: 0.5, reservingId: undefined });
    expect(plan.intentId).toBeUndefined();
    const raised = planNote(rows, { id: 'v', note: 'rebound', patch: { reservedUsd: 1 } }, operator);
    expect(raised.rows[0]!.money).toEqual({ reservedUsd: 1.25 });
    expect(raised.money).toEqual({ reservedUsd: 0.5, actualUsd: 0, reservingId: 'v' });
    expect(() => planNote(rows, { id: 'ghost', note: 'charge', patch: {} }, at)).toThrow("unknown item 'ghost'");
  });
});

describe('overBudget', () => {
  it('settled + reserved past the budget, a nano-dollar of float noise allowed; no budget, never', () => {
    expect(overBudget({ reservedUsd: 0.5, actualUsd: 0.5 }, 1)).toBe(false);
    expect(overBudget({ reservedUsd: 0.1 + 0.2, actualUsd: 0 }, 0.3)).toBe(false);
    expect(overBudget({ reservedUsd: 0.5, actualUsd: 0.500000002 }, 1)).toBe(true);
    expect(overBudget({ reservedUsd: 1e6, actualUsd: 0 }, null)).toBe(false);
    expect(overBudget({ reservedUsd: 1e6, actualUsd: 0 }, undefined)).toBe(false);
  });
});
