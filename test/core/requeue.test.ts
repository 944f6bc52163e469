import { describe, expect, it } from 'vitest';
import { planRequeue, type RequeueCandidate } from '../../src/core/requeue.js';
import type { ItemState } from '../../src/core/states.js';

const context = { journalArg: '--state state/demo.db', file: 'state/demo.db' };
const row = (id: string, state: ItemState, abandonedWhileUncertain = false): RequeueCandidate => ({
  id,
  state,
  abandonedWhileUncertain,
  source: 'rows.jsonl:3',
});
const named = (...rows: RequeueCandidate[]) => new Map(rows.map((r) => [r.id, r]));

describe('planRequeue: which rows retry sends again', () => {
  const bulk = [row('f1', 'failed'), row('r1', 'rejected'), row('f2', 'failed'), row('gone', 'failed', true)];

  it('--failed takes every failed row but those abandoned while uncertain, which it lists as left out', () => {
    expect(planRequeue({ failed: true, rejected: false, ids: [] }, named(), bulk, context)).toEqual({
      ok: true,
      requeue: ['f1', 'f2'],
      leftOut: ['gone'],
    });
  });

  it('--rejected takes every rejected row; both flags take both', () => {
    expect(planRequeue({ failed: false, rejected: true, ids: [] }, named(), bulk, context)).toEqual({
      ok: true,
      requeue: ['r1'],
      leftOut: [],
    });
    expect(planRequeue({ failed: true, rejected: true, ids: [] }, named(), bulk, context)).toEqual({
      ok: true,
      requeue: ['f1', 'r1', 'f2'],
      leftOut: ['gone'],
    });
  });

  it('named failed or rejected ids are requeued, once each, whatever the flags', () => {
    expect(
      planRequeue(
        { failed: false, rejected: false, ids: ['r1', 'f2', 'r1'] },
        named(row('r1', 'rejected'), row('f2', 'failed')),
        [],
        context,
      ),
    ).toEqual({ ok: true, requeue: ['r1', 'f2'], leftOut: [] });
    expect(
      planRequeue(
        { failed: true, rejected: false, ids: ['f1', 'r1'] },
        named(row('f1', 'failed'), row('r1', 'rejected')),
        bulk,
        context,
      ),
    ).toEqual({ ok: true, requeue: ['f1', 'f2', 'r1'], leftOut: ['gone'] });
  });

  it('with neither flag nor ids, it is refused as usage', () => {
    const plan = planRequeue({ failed: false, rejected: false, ids: [] }, named(), bulk, context);
    expect(plan).toEqual({
      ok: false,
      refusal: expect.stringMatching(/^Expected --failed, --rejected, --cancelled or item ids/),
    });
  });

  it.each<[ItemState, RegExp]>([
    [
      'uncertain',
      /^item u is uncertain: its request may have reached the gateway; decide with `gbatch resolve --state state\/demo.db u --task-id <T>` \(or --resubmit \/ --abandon\), not retry; nothing was requeued$/,
    ],
    ['invalid', /^item u is invalid \(never sent\): fix its manifest row \(rows.jsonl:3\) and run again/],
    ['pending', /is pending: the next `gbatch run` sends it; nothing to retry/],
    ['deferred', /is deferred .*the next `gbatch run` sends it/],
    ['downloaded', /is downloaded: it finished; nothing to retry/],
    ['submitting', /is submitting: it is still in progress/],
    ['submitted', /is submitted: it is still in progress/],
    ['running', /is running: it is still in progress/],
    ['succeeded', /is succeeded: it is still in progress/],
  ])('a named %s row is refused with one line saying what to do instead', (state, message) => {
    const plan = planRequeue(
      { failed: true, rejected: false, ids: ['f1', 'u'] },
      named(row('f1', 'failed'), { ...row('u', state), id: 'u' }),
      bulk,
      context,
    );
    expect(plan.ok).toBe(false);
    if (!plan.ok) {
      expect(plan.refusal).toMatch(message);
      expect(plan.refusal).not.toContain('\n');
    }
  });

  it('an uncertain chat row is pointed to --resubmit (a chat call has no task to attach)', () => {
    const plan = planRequeue(
      { failed: false, rejected: false, ids: ['c'] },
      named({ ...row('c', 'uncertain'), kind: 'chat' }),
      [],
      context,
    );
    expect(plan).toEqual({
      ok: false,
      refusal:
        'item c is uncertain: its request may have reached the gateway; decide with `gbatch resolve --state state/demo.db c --resubmit` (or --abandon), not retry; nothing was requeued',
    });
  });

  it('a named row abandoned while uncertain is refused with a pointer to resolve; an unknown id names the journal', () => {
    const abandoned = planRequeue(
      { failed: false, rejected: false, ids: ['gone'] },
      named(row('gone', 'failed', true)),
      [],
      context,
    );
    expect(abandoned).toEqual({
      ok: false,
      refusal: expect.stringMatching(
        /^item gone was abandoned while uncertain: its request may have reached the gateway.*`gbatch resolve`/,
      ),
    });
    const unknown = planRequeue(
      { failed: false, rejected: false, ids: ['nope', 'gone'] },
      named(row('gone', 'failed', true)),
      [],
      context,
    );
    expect(unknown).toEqual({
      ok: false,
      refusal: 'state/demo.db: no item nope (and 1 more id(s) refused); nothing was requeued',
    });
  });

  it('ids that need quoting are shown quoted, control characters escaped', () => {
    const plan = planRequeue({ failed: false, rejected: false, ids: ['a b\x1b[2J'] }, named(), [], context);
    expect(plan).toEqual({ ok: false, refusal: "state/demo.db: no item 'a b\\x1b[2J'; nothing was requeued" });
  });
});
