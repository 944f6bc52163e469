// A runner whose share is done waits for the other runners' last rows: its exit waits on the look that
// finds them done, so looks stay close together however long the wait.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BudgetGuard } from '../../../src/pipeline/budget-guard.js';
import type { RunContext } from '../../../src/pipeline/context.js';
import { JobPeers } from '../../../src/pipeline/runners/job-peers.js';

function peers(heldFor: number) {
  const sleeps: number[] = [];
  let looks = 0;
  const none = { madeUncertain: [], adopted: [], released: 0 };
  const ctx = {
    journal: {
      capabilities: { sharedRunners: true, notesAfterLoss: true },
      coordination: {
        submissionsStopped: async () => undefined,
        pauseAccount: async () => {},
        accountPause: async () => 0,
        jobMoney: async () => ({ reservedUsd: 0, actualUsd: 0, inFlight: false, drifts: [] }),
      },
      membership: {
        othersWork: async () => ({ held: looks++ < heldFor ? 2 : 0, claimable: 0 }),
        sweep: async () => none,
      },
    },
    budget: new BudgetGuard(undefined, { reservedUsd: 0, actualUsd: 0 }),
    gateway: { pausedUntil: () => 0 },
    clock: {
      now: () => 0,
      sleep: async (ms: number) => {
        sleeps.push(ms);
      },
    },
    events: new EventEmitter(),
    stop: new AbortController(),
    submitStop: new AbortController(),
    account: 'acct',
  } as unknown as RunContext;
  const lanes = { poll: () => {}, download: () => {}, answered: () => {}, balanceRanOut: () => {} };
  return { peers: new JobPeers(ctx, lanes, 500), sleeps };
}

describe('JobPeers.settle', () => {
  it('looks again within 100 ms while other runners hold rows, and is done on the look that finds none', async () => {
    const { peers: waiting, sleeps } = peers(12);
    expect(await waiting.settle()).toBe('done');
    expect(sleeps).toHaveLength(12);
    expect(sleeps[0]).toBe(50);
    expect(Math.max(...sleeps)).toBe(100);
  });

  it('does not wait when no other runner holds a row', async () => {
    const { peers: alone, sleeps } = peers(0);
    expect(await alone.settle()).toBe('done');
    expect(sleeps).toEqual([]);
  });
});
