// A runner whose share is done waits for the other runners' last rows: its exit waits on the look that
// finds them done, so looks stay close together however long the wait.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BudgetGuard } from '../../../src/pipeline/budget-guard.js';
import type { RunContext } from '../../../src/pipeline/context.js';
import { JobPeers } from '../../../src/pipeline/runners/job-peers.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

function peers(heldFor: number, fleet?: number) {
  const sleeps: number[] = [];
  let looks = 0;
  let sweeps = 0;
  const none = { madeUncertain: [], adopted: [], released: 0, ...(fleet !== undefined ? { runners: fleet } : {}) };
  const ctx = {
    journal: {
      capabilities: { sharedRunners: true, notesAfterLoss: true },
      coordination: {
        submissionsStopped: async () => undefined,
        pauseAccount: async () => {},
        accountPause: async () => 0,
        jobMoney: async () => ({ reservedUsd: 0, actualUsd: 0, inFlight: false, budgetUsd: undefined, drifts: [] }),
      },
      membership: {
        othersWork: async () => ({ held: looks++ < heldFor ? 2 : 0, claimable: 0 }),
        sweep: async () => {
          sweeps++;
          return none;
        },
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
    voice: operatorVoice,
  } as unknown as RunContext;
  const lanes = { poll: () => {}, download: () => {}, answered: () => {}, balanceRanOut: () => {} };
  return { peers: new JobPeers(ctx, lanes, 500), sleeps, sweeps: () => sweeps };
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

describe('JobPeers in a fleet', () => {
  it('of ten runners or fewer, looks at the job on every beat', async () => {
    const { peers: few, sweeps } = peers(0, 10);
    for (let beat = 0; beat < 6; beat++) await few.onBeat();
    expect(sweeps()).toBe(6);
  });

  it('of a hundred runners, looks on every tenth beat once a sweep saw the fleet, and waits for the last rows ten times longer', async () => {
    const { peers: many, sleeps, sweeps } = peers(12, 100);
    await many.onBeat(); // the first look: the fleet is not known before it
    for (let beat = 0; beat < 30; beat++) await many.onBeat();
    expect(sweeps()).toBe(1 + 3);

    expect(await many.settle()).toBe('done');
    expect(sleeps[0]).toBe(500);
    expect(Math.max(...sleeps)).toBe(1000);
  });
});

describe('JobPeers.observeBudget', () => {
  /** A runner whose reads of the job's money are answered when the test says, in any order. */
  function reading() {
    const answers: Array<(money: { budgetUsd: number | undefined }) => void> = [];
    const logged: string[] = [];
    const events = new EventEmitter();
    events.on('log', (line: string) => logged.push(line));
    const budget = new BudgetGuard(100, { reservedUsd: 0, actualUsd: 0 });
    const ctx = {
      journal: {
        capabilities: { sharedRunners: true },
        coordination: {
          jobMoney: () =>
            new Promise((resolve) =>
              answers.push(({ budgetUsd }) =>
                resolve({ reservedUsd: 0, actualUsd: 0, inFlight: false, budgetUsd, drifts: [] }),
              ),
            ),
        },
      },
      budget,
      events,
      voice: operatorVoice,
    } as unknown as RunContext;
    return {
      peers: new JobPeers(ctx, { poll() {}, download() {}, answered() {}, balanceRanOut() {} }, 500),
      answers,
      budget,
      logged,
    };
  }

  it("takes the job's budget as another run changed it, says so once, and an older read answered later does not bring the old one back", async () => {
    const { peers: runner, answers, budget, logged } = reading();
    const older = runner.observeBudget(); // begun before the change
    const newer = runner.observeBudget(); // begun after it
    answers[1]!({ budgetUsd: 3 });
    await newer;
    expect(budget.budgetUsd).toBe(3);
    answers[0]!({ budgetUsd: 100 });
    await older;
    expect(budget.budgetUsd).toBe(3);
    expect(logged.filter((line) => line.includes("the job's budget was changed"))).toEqual([
      "the job's budget was changed by another run of the job: $100.000000 -> $3.000000; this run holds to it from now on",
    ]);
  });
});
