import { describe, expect, it } from 'vitest';
import { ABANDONED_BOOKED, ABANDONED_NOT_BILLED, planAbandon, type AbandonRow } from '../../src/core/abandon.js';

const row = (state: AbandonRow['state'], extra: Partial<AbandonRow> = {}): AbandonRow => ({
  id: 'v1',
  state,
  reservedUsd: 2.5,
  abandonedWhileUncertain: false,
  ...extra,
});

describe("planAbandon: an uncertain row's bound stays booked until the operator says it was not billed", () => {
  it('--abandon of an uncertain row keeps its reservation and names the command that releases it', () => {
    const plan = planAbandon(row('uncertain'), false, 'night');
    expect(plan).toMatchObject({
      kind: 'change',
      event: 'abandon',
      reservedUsd: undefined,
      error: { type: ABANDONED_BOOKED },
    });
    expect(plan.kind === 'change' && plan.said).toMatch(
      /bound stays booked.*gbatch resolve night v1 --abandon --not-billed$/,
    );
  });

  it('--abandon --not-billed releases it, on an uncertain row or one abandoned before', () => {
    expect(planAbandon(row('uncertain'), true, 'night')).toMatchObject({
      kind: 'change',
      event: 'abandon',
      reservedUsd: 0,
      error: { type: ABANDONED_NOT_BILLED },
    });
    expect(planAbandon(row('failed', { abandonedWhileUncertain: true }), true, 'night')).toMatchObject({
      kind: 'change',
      event: 'unreserve',
      reservedUsd: 0,
      error: { type: ABANDONED_NOT_BILLED },
    });
    expect(planAbandon(row('failed', { abandonedWhileUncertain: true, reservedUsd: 0 }), true, 'night')).toMatchObject({
      kind: 'nothing',
    });
  });

  it('refuses what it cannot mean', () => {
    expect(planAbandon(row('pending'), true, 'night')).toMatchObject({
      kind: 'refused',
      why: expect.stringMatching(/never sent/),
    });
    expect(planAbandon(row('failed', { abandonedWhileUncertain: true }), false, '--state s.db')).toMatchObject({
      kind: 'refused',
      why: expect.stringMatching(/already abandoned; .*gbatch resolve --state s\.db v1 --abandon --not-billed/),
    });
    expect(planAbandon(row('failed'), true, 'night')).toMatchObject({ kind: 'refused' });
    expect(planAbandon(row('downloaded'), false, 'night')).toMatchObject({ kind: 'refused' });
  });

  it('a pending or deferred row had nothing booked', () => {
    expect(planAbandon(row('deferred', { reservedUsd: 0 }), false, 'night')).toMatchObject({
      kind: 'change',
      event: 'abandon',
      reservedUsd: 0,
    });
  });
});
