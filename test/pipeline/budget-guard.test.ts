import { describe, expect, it } from 'vitest';
import { BudgetGuard } from '../../src/pipeline/budget-guard.js';

/** Whether `promise` has settled by the time already-queued work has run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('BudgetGuard', () => {
  it('reserves while the estimate fits, and refuses without changing anything when it does not', () => {
    const guard = new BudgetGuard(1, { reservedUsd: 0.2, actualUsd: 0.3 });
    expect(guard.tryReserve(0.4)).toBe(true);
    expect(guard.current()).toEqual({ reservedUsd: 0.6, actualUsd: 0.3 });
    expect(guard.tryReserve(0.100000001)).toBe(false);
    expect(guard.current()).toEqual({ reservedUsd: 0.6, actualUsd: 0.3 });
    expect(guard.tryReserve(0.1)).toBe(true); // exactly up to the budget
    expect(guard.current()).toEqual({ reservedUsd: 0.7, actualUsd: 0.3 });
  });

  it('with no budget every reservation fits', () => {
    const guard = new BudgetGuard(undefined, { reservedUsd: 0, actualUsd: 0 });
    for (let i = 0; i < 100; i++) expect(guard.tryReserve(1000)).toBe(true);
    expect(guard.current().reservedUsd).toBe(100_000);
  });

  it('current() is a copy: callers cannot move the money', () => {
    const guard = new BudgetGuard(1, { reservedUsd: 0, actualUsd: 0 });
    guard.current().reservedUsd = 99;
    expect(guard.current().reservedUsd).toBe(0);
  });

  it('release returns the reservation; settle replaces it with the actual charge', () => {
    const guard = new BudgetGuard(1, { reservedUsd: 0, actualUsd: 0 });
    guard.tryReserve(0.1);
    guard.tryReserve(0.2);
    guard.tryReserve(0.3);
    guard.release(0.1);
    expect(guard.current()).toEqual({ reservedUsd: 0.5, actualUsd: 0 });
    guard.settle(0.2, 0.25); // an overshoot
    expect(guard.current()).toEqual({ reservedUsd: 0.3, actualUsd: 0.25 });
    expect(guard.tryReserve(0.45)).toBe(true);
    expect(guard.tryReserve(0.000000001)).toBe(false);
  });

  it('hasLive counts reservations this run may still settle: reserve, adopt, release, settle, hold', () => {
    const guard = new BudgetGuard(10, { reservedUsd: 1, actualUsd: 0 });
    expect(guard.hasLive()).toBe(false);
    guard.adopt(1); // an in-flight task from an earlier run
    expect(guard.hasLive()).toBe(true);
    guard.settle(1, 0.9);
    expect(guard.hasLive()).toBe(false);
    guard.tryReserve(1);
    guard.tryReserve(1);
    guard.tryReserve(1);
    guard.release(1);
    guard.settle(1, 1);
    expect(guard.hasLive()).toBe(true);
    guard.hold(); // an uncertain item: stays reserved, nothing in this run will free it
    expect(guard.hasLive()).toBe(false);
    expect(guard.current()).toEqual({ reservedUsd: 1, actualUsd: 1.9 });
    expect(guard.tryReserve(100)).toBe(false); // a refused reservation is not live
    expect(guard.hasLive()).toBe(false);
    expect(guard.tryReserve(0)).toBe(true);
    expect(guard.hasLive()).toBe(true);
  });

  it('changed() resolves on the next release, settle or hold, and not before', async () => {
    const guard = new BudgetGuard(1, { reservedUsd: 0, actualUsd: 0 });
    guard.tryReserve(1);
    guard.tryReserve(0); // keep a second live reservation
    guard.tryReserve(0);

    const first = guard.changed();
    const second = guard.changed();
    expect(await isSettled(first)).toBe(false);
    guard.release(1);
    expect(await isSettled(first)).toBe(true);
    expect(await isSettled(second)).toBe(true);

    const afterSettle = guard.changed();
    expect(await isSettled(afterSettle)).toBe(false);
    guard.settle(0, 0);
    expect(await isSettled(afterSettle)).toBe(true);

    const afterHold = guard.changed();
    guard.hold();
    expect(await isSettled(afterHold)).toBe(true);

    // A reservation does not wake waiters: headroom only shrank.
    const afterReserve = guard.changed();
    guard.tryReserve(0.5);
    expect(await isSettled(afterReserve)).toBe(false);
  });

  it('among runners of one job, follows the journal: a task taken over from a runner that is gone settles without a negative reservation', () => {
    // Started before the other runner reserved anything; the journal now holds its $2 for a task it left.
    const guard = new BudgetGuard(10, { reservedUsd: 0, actualUsd: 0 });
    guard.observe({ reservedUsd: 2, actualUsd: 1, inFlight: true, budgetUsd: 10 }, guard.mark());
    guard.adopt(1);
    guard.settle(2, 0.5);
    expect(guard.current()).toEqual({ reservedUsd: 0, actualUsd: 1.5 });
  });

  it("keeps its own reservations the journal's totals do not hold yet, and those recorded while the read was on its way", () => {
    const guard = new BudgetGuard(10, { reservedUsd: 0, actualUsd: 0 });
    expect(guard.tryReserve(1)).toBe(true);
    expect(guard.tryReserve(2)).toBe(true);
    const mark = guard.mark();
    guard.recorded(2); // in the journal, perhaps after the read
    guard.observe({ reservedUsd: 4, actualUsd: 0, inFlight: true, budgetUsd: 10 }, mark);
    expect(guard.current().reservedUsd).toBe(7); // 4 in the journal, 1 not yet written, 2 the read may have missed
    expect(guard.committed().reservedUsd).toBe(5); // shown and announced: the 2 in doubt are not counted twice
    guard.observe({ reservedUsd: 6, actualUsd: 0, inFlight: true, budgetUsd: 10 }, guard.mark());
    expect(guard.current().reservedUsd).toBe(7);
    expect(guard.committed().reservedUsd).toBe(7); // nothing in doubt once a read began after the write
    guard.unsent(1);
    expect(guard.current().reservedUsd).toBe(6);
  });

  it("waits while another runner's work is in flight, and wakes on each look at the journal", async () => {
    const guard = new BudgetGuard(1, { reservedUsd: 0, actualUsd: 0 });
    expect(guard.hasLive()).toBe(false);
    const woken = guard.changed();
    guard.observe({ reservedUsd: 1, actualUsd: 0, inFlight: true, budgetUsd: 1 }, guard.mark());
    expect(await isSettled(woken)).toBe(true);
    expect(guard.tryReserve(0.5)).toBe(false);
    expect(guard.hasLive()).toBe(true);
    guard.observe({ reservedUsd: 0, actualUsd: 0.2, inFlight: false, budgetUsd: 1 }, guard.mark());
    expect(guard.hasLive()).toBe(false);
    expect(guard.tryReserve(0.5)).toBe(true);
  });

  it("among runners of one job, the job's budget read with its totals is the one reserved against from then on", () => {
    const guard = new BudgetGuard(100, { reservedUsd: 0, actualUsd: 0 });
    expect(guard.tryReserve(2)).toBe(true);
    guard.recorded(2);
    guard.observe({ reservedUsd: 2, actualUsd: 0.4, inFlight: true, budgetUsd: 3 }, guard.mark());
    expect(guard.budgetUsd).toBe(3);
    expect(guard.tryReserve(0.7)).toBe(false); // 2.4 held of the lowered 3: 0.6 left
    expect(guard.tryReserve(0.6)).toBe(true);
    guard.observe({ reservedUsd: 2.6, actualUsd: 0.4, inFlight: true, budgetUsd: undefined }, guard.mark());
    expect(guard.budgetUsd).toBeUndefined(); // lifted by another run: every reservation fits
    expect(guard.tryReserve(50)).toBe(true);
  });
});
