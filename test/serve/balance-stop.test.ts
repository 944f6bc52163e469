// The server's 402 stop: every batch live at the 402 stops (a run in progress at once, a later run of it
// from its start); a batch that was not live then is not stopped.
import { describe, expect, it } from 'vitest';
import { BalanceStop } from '../../src/serve/balance-stop.js';

describe('BalanceStop', () => {
  it('stops the runs of every batch live at the 402, and only those', () => {
    const stop = new BalanceStop();
    const running = stop.signalFor('a');
    expect(running.aborted).toBe(false);
    expect(stop.trip(['a', 'b'])).toBe(true);
    expect(running.aborted).toBe(true);
    // b was live but not running: its next run starts stopped. c came after the 402.
    expect(stop.signalFor('b').aborted).toBe(true);
    expect(stop.signalFor('c').aborted).toBe(false);
    // A second 402 among the same batches is no news.
    expect(stop.trip(['a', 'b'])).toBe(false);
    expect(stop.trip(['a', 'c'])).toBe(true);
  });

  it('forgets a batch once it is final', () => {
    const stop = new BalanceStop();
    stop.trip(['a']);
    expect(stop.isStopped('a')).toBe(true);
    stop.forget('a');
    expect(stop.isStopped('a')).toBe(false);
  });
});
