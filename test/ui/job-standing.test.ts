import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { jobStanding, type StandingFacts } from '../../src/ui/job-standing.js';

const counts = (rows: Partial<Record<ItemState, number>>): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, rows[s] ?? 0])) as Record<ItemState, number>;

const ended = (exitCode: number, stopReason: string | null = null) => ({
  ended: true,
  exitCode,
  stopReason,
  message: null,
});

const facts = (over: Partial<StandingFacts>): StandingFacts => ({
  counts: counts({ downloaded: 3 }),
  liveRunners: 0,
  cancelled: false,
  lastRun: ended(0),
  orphansWaiting: 0,
  ...over,
});

describe('jobStanding', () => {
  it('a live runner wins over everything, and says how many', () => {
    expect(jobStanding(facts({ liveRunners: 3, counts: counts({ uncertain: 2 }) }))).toEqual({
      kind: 'running',
      label: 'running (3 runners)',
    });
    expect(jobStanding(facts({ liveRunners: 1 })).label).toBe('running (1 runner)');
  });

  it('uncertain or orphaned rows need an operator before a budget stop is told', () => {
    expect(jobStanding(facts({ counts: counts({ uncertain: 2, deferred: 5 }), lastRun: ended(4) })).kind).toBe(
      'needs-operator',
    );
    expect(jobStanding(facts({ orphansWaiting: 1 })).label).toBe('needs an operator: 1 orphaned');
  });

  it('deferred rows, or a run that ended on the budget, are a stop on budget', () => {
    expect(jobStanding(facts({ counts: counts({ deferred: 4, downloaded: 1 }), lastRun: ended(3) })).label).toBe(
      'stopped on budget: 4 deferred',
    );
    expect(jobStanding(facts({ counts: counts({ pending: 2 }), lastRun: ended(3) })).kind).toBe('stopped-on-budget');
  });

  it('finished counts failures; a job never run is not started; a killed run is a stop', () => {
    expect(jobStanding(facts({})).label).toBe('finished');
    expect(
      jobStanding(facts({ counts: counts({ downloaded: 1, failed: 1, rejected: 1 }), lastRun: ended(1) })).label,
    ).toBe('finished, 2 failed or rejected');
    expect(jobStanding(facts({ counts: counts({ pending: 2 }), lastRun: undefined })).kind).toBe('not-started');
    expect(
      jobStanding(
        facts({
          counts: counts({ pending: 2 }),
          lastRun: { ended: false, exitCode: null, stopReason: null, message: null },
        }),
      ).label,
    ).toBe('crashed (the last run did not record its end)');
    expect(jobStanding(facts({ counts: counts({ cancelled: 2 }), cancelled: true })).kind).toBe('cancelled');
  });

  it("issue 32: a cancelled job is no stop on budget; a stop by the gateway's 402 is not one by the budget", () => {
    // `gbatch cancel` mid-run: the run ends with exit 3 and nothing deferred.
    expect(
      jobStanding(facts({ counts: counts({ downloaded: 1, cancelled: 4 }), cancelled: true, lastRun: ended(3) })),
    ).toEqual({
      kind: 'cancelled',
      label: 'cancelled',
    });
    const balance = jobStanding(
      facts({ counts: counts({ downloaded: 4, deferred: 3 }), lastRun: ended(3, 'balance') }),
    );
    expect(balance.label).toBe("stopped by the gateway's 402: 3 deferred");
    expect(balance.kind).not.toBe('stopped-on-budget');
  });
});
