// Reads of the job's group ratios among runners sharing a job: a text answer is booked at what the journal held
// when it arrived (a read begun after it), callers arriving together share one read, reads begin a spacing apart
// (the answers in between share the next), and a failed read leaves the ratio as it was.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import type { SeenDrift } from '../../src/core/seen-drift.js';
import { BudgetGuard } from '../../src/pipeline/budget-guard.js';
import type { RunContext } from '../../src/pipeline/context.js';
import { DriftReads, recheckText } from '../../src/pipeline/job-drift.js';
import { operatorVoice } from '../../src/pipeline/voice/operator-voice.js';

/** video-mini at 720p, 5 s: the built-in table says $0.18417168; charged `ratio` times it. */
const mini = (ratio: number): SeenDrift => ({
  account: 'acct',
  model: 'video-mini',
  itemId: 'v1',
  totalTokens: 108_900,
  resolution: '720p',
  finalResolution: '720p',
  hasReferenceVideo: false,
  tableUsd: 0.18417168,
  gatewayChargeUsd: 0.18417168 * ratio,
  ratio,
});

function context(sharedRunners = true, clock = new ManualClock(0)) {
  let journal: SeenDrift[] = [];
  const reads: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const lines: string[] = [];
  const events = new EventEmitter();
  events.on('log', (line: string) => lines.push(line));
  const notes: Array<{ id: string; patch: unknown; note: string }> = [];
  const ctx = {
    journal: {
      capabilities: { sharedRunners },
      annotate: async (id: string, patch: unknown, note: string) => {
        notes.push({ id, patch, note });
      },
      // Each read answers with what the journal holds when the test lets it finish.
      drifts: () =>
        new Promise<SeenDrift[]>((resolve, reject) => reads.push({ resolve: () => resolve(journal), reject })),
    },
    budget: new BudgetGuard(undefined, { reservedUsd: 0, actualUsd: 0 }),
    account: 'acct',
    pricing: BUILTIN_PRICING,
    events,
    voice: operatorVoice,
    clock,
  } as unknown as RunContext;
  return {
    ctx,
    reads,
    lines,
    notes,
    record: (seen: SeenDrift) => {
      journal = [seen];
    },
  };
}

describe('DriftReads.fresh', () => {
  it('waits for a read begun after the call: a ratio recorded while a read was on its way is seen', async () => {
    const { ctx, reads, lines, record } = context();
    const drifts = new DriftReads(ctx, 0);
    const first = drifts.fresh();
    await Promise.resolve();
    expect(reads).toHaveLength(1);
    record(mini(2)); // another runner records x2 while the first read is on its way (it may have missed it)
    const second = drifts.fresh();
    const third = drifts.fresh(); // arriving together with the second: one read for both
    expect(second).toBe(third);
    reads[0]!.resolve();
    await first;
    expect(reads).toHaveLength(2);
    reads[1]!.resolve();
    await second;
    expect(reads).toHaveLength(2);
    expect(ctx.budget.driftRatio).toBeCloseTo(2, 9);
    expect(lines).toEqual([
      expect.stringMatching(/^another runner of the job saw model 'video-mini' \(item 'v1'\): .* \(x2\.000\)/),
    ]);
  });

  it('a failed read leaves the ratio as it was and never rejects; the next caller reads again', async () => {
    const { ctx, reads, record } = context();
    const drifts = new DriftReads(ctx, 0);
    const failed = drifts.fresh();
    await Promise.resolve();
    reads[0]!.reject(new Error('connection lost'));
    await expect(failed).resolves.toBeUndefined();
    expect(ctx.budget.driftRatio).toBe(1);
    record(mini(1.5));
    const again = drifts.fresh();
    await Promise.resolve();
    await Promise.resolve();
    reads[1]!.resolve();
    await again;
    expect(ctx.budget.driftRatio).toBeCloseTo(1.5, 9);
  });

  it('on a journal one runner holds, reads nothing: the runner saw every ratio itself', async () => {
    const { ctx, reads } = context(false);
    await new DriftReads(ctx, 0).fresh();
    expect(reads).toHaveLength(0);
  });

  it('begins reads a spacing apart: the answers in between share the next read, which begins after each of them', async () => {
    const clock = new ManualClock(1_000);
    const { ctx, reads, record } = context(true, clock);
    const drifts = new DriftReads(ctx, 250);
    const first = drifts.fresh(); // nothing read lately: at once
    await Promise.resolve();
    await Promise.resolve();
    expect(reads).toHaveLength(1);
    reads[0]!.resolve();
    await first;

    await clock.advance(100);
    const second = drifts.fresh();
    await clock.waitForSleepers(1); // waits out the spacing: 150 ms more
    expect(clock.nextWakeAt()).toBe(1_250);
    record(mini(2)); // another runner records x2 before the next read begins
    await clock.advance(100);
    const third = drifts.fresh(); // arriving meanwhile: the same read
    expect(third).toBe(second);
    expect(reads).toHaveLength(1);
    await clock.advance(50);
    for (let i = 0; i < 5 && reads.length < 2; i++) await Promise.resolve();
    expect(reads).toHaveLength(2);
    reads[1]!.resolve();
    await Promise.all([second, third]);
    expect(ctx.budget.driftRatio).toBeCloseTo(2, 9);
  });
});

describe('recheckText: a text answer booked at the ratio its runner knew', () => {
  const booked = { tableUsd: 0.00045, ratio: 1, usd: 0.00045 };

  it('a higher ratio read after it: the row and the budget charged the difference, with the note', async () => {
    const { ctx, reads, notes, record } = context();
    ctx.budget.settle(0, 0.00045); // the booking
    record(mini(2)); // recorded by another runner before the read below begins
    const checked = recheckText(ctx, new DriftReads(ctx, 0), 'c1', booked);
    await Promise.resolve();
    await Promise.resolve();
    reads[0]!.resolve();
    await checked;
    expect(notes).toEqual([
      {
        id: 'c1',
        patch: {
          actualUsd: 0.0009,
          lastError: {
            message:
              "booked at the pricing table's $0.000450 x2.000: the gateway was seen charging that much above the table",
          },
        },
        note: 'ratio',
      },
    ]);
    expect(ctx.budget.committed().actualUsd).toBeCloseTo(0.0009, 12);
  });

  it('nothing higher: the booking stands, nothing is written', async () => {
    const { ctx, reads, notes } = context();
    const checked = recheckText(ctx, new DriftReads(ctx, 0), 'c1', booked);
    await Promise.resolve();
    await Promise.resolve();
    reads[0]!.resolve();
    await checked;
    expect(notes).toEqual([]);
  });
});
