import { describe, expect, it } from 'vitest';
import {
  countsForExit,
  forgetRefusal,
  LISTING_CODE,
  listingOf,
  ORPHAN_WAITING_STATES,
  wouldSend,
  type ForgetCandidate,
} from '../../src/core/orphans.js';
import { planRequeue } from '../../src/core/requeue.js';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';

const zero = (): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;

describe('orphaned rows: the one rule run and plan share', () => {
  it('a run sends pending and deferred rows that are listed or adopted, never orphaned ones, and nothing in another state', () => {
    for (const state of ITEM_STATES) {
      expect(wouldSend(state, 'listed'), state).toBe(state === 'pending' || state === 'deferred');
      expect(wouldSend(state, 'adopted'), state).toBe(state === 'pending' || state === 'deferred');
      expect(wouldSend(state, 'orphaned'), state).toBe(false);
    }
  });

  it('listings round-trip through their stored codes; an unknown code reads as listed', () => {
    for (const listing of ['listed', 'orphaned', 'adopted'] as const)
      expect(listingOf(LISTING_CODE[listing])).toBe(listing);
    expect(listingOf(7)).toBe('listed');
  });

  it('orphaned rows that wait leave the counts the exit code is decided on; rows in flight stay', () => {
    const counts = { ...zero(), pending: 3, deferred: 8, invalid: 1, failed: 2, uncertain: 1, submitted: 1 };
    const orphaned = { deferred: 5, invalid: 1, failed: 2 };
    expect(countsForExit(counts, orphaned)).toEqual({ ...counts, deferred: 3, invalid: 0, failed: 0 });
    expect(countsForExit(counts, {})).toEqual(counts);
    expect(ORPHAN_WAITING_STATES).not.toContain('uncertain');
    expect(ORPHAN_WAITING_STATES).not.toContain('submitted');
  });
});

describe('forgetRefusal: which rows gbatch forget may remove', () => {
  const candidate = (
    state: ItemState,
    listing: ForgetCandidate['listing'] = 'orphaned',
    attempts = 0,
  ): ForgetCandidate => ({ id: 'x', state, listing, attempts });

  it('only an orphaned or adopted row never sent: pending, deferred, invalid or cancelled with no attempt', () => {
    for (const state of ITEM_STATES) {
      const never = ['pending', 'deferred', 'invalid', 'cancelled'].includes(state);
      expect(forgetRefusal(candidate(state), 'x') === undefined, state).toBe(never);
      expect(forgetRefusal(candidate(state, 'adopted'), 'x') === undefined, state).toBe(never);
    }
  });

  it('refuses a row a manifest lists, one sent before, and an unknown id, each saying why', () => {
    expect(forgetRefusal(candidate('pending', 'listed'), 'x')).toMatch(
      /is in the job's manifests: remove its row from the manifest first/,
    );
    expect(forgetRefusal(candidate('pending', 'orphaned', 2), 'x')).toBe(
      "item 'x' was sent (pending, 2 attempt(s)): it stays in the journal, where its history and its cost are kept",
    );
    expect(forgetRefusal(undefined, 'gone')).toBe("no item 'gone'");
  });
});

describe('planRequeue with orphaned rows', () => {
  const context = { journalArg: 'night', file: 'state/night.db' };

  it('a named orphaned pending or deferred row is adopted without a requeue; a listed one is still refused', () => {
    const named = new Map([
      ['p', { id: 'p', state: 'pending' as const, abandonedWhileUncertain: false, orphaned: true }],
      ['d', { id: 'd', state: 'deferred' as const, abandonedWhileUncertain: false, orphaned: true }],
      ['f', { id: 'f', state: 'failed' as const, abandonedWhileUncertain: false, orphaned: true }],
    ]);
    expect(planRequeue({ failed: false, rejected: false, ids: ['p', 'd', 'f'] }, named, [], context)).toEqual({
      ok: true,
      requeue: ['f'],
      leftOut: [],
      adopt: ['p', 'd'],
    });
    const listed = new Map([['p', { id: 'p', state: 'pending' as const, abandonedWhileUncertain: false }]]);
    expect(planRequeue({ failed: false, rejected: false, ids: ['p'] }, listed, [], context)).toMatchObject({
      ok: false,
    });
    const invalid = new Map([
      ['i', { id: 'i', state: 'invalid' as const, abandonedWhileUncertain: false, orphaned: true }],
    ]);
    expect(planRequeue({ failed: false, rejected: false, ids: ['i'] }, invalid, [], context)).toMatchObject({
      ok: false,
    });
  });
});
