// --model-limit's decisions: may a row of this model start now, and if not, when may it. Starts are
// counted when a row is handed to the submission queue; each request is also held to its model's
// rate at the wire by a SendPacer of its own (see Submitter), as --rpm is.
import type { Clock } from '../../core/clock.js';
import type { ModelLimit, ModelLimits } from '../../core/model-limits.js';
import { earliestSend, rateWindow, type RateWindow } from '../pacing/send-pacer.js';

interface ModelState {
  limit: ModelLimit;
  window: RateWindow | undefined;
  inFlight: number;
  starts: number[];
}

export class ModelGate {
  private readonly models = new Map<string, ModelState>();

  constructor(
    limits: ModelLimits,
    private readonly clock: Clock,
  ) {
    for (const [model, limit] of limits) {
      this.models.set(model, { limit, window: limit.rpm ? rateWindow(limit.rpm) : undefined, inFlight: 0, starts: [] });
    }
  }

  limits(model: string): boolean {
    return this.models.has(model);
  }

  /** Ms until a row of `model` may start: 0 now, Infinity until one of its rows in flight ends. */
  waitMs(model: string): number {
    const state = this.models.get(model);
    if (!state) return 0;
    if (state.limit.concurrency !== undefined && state.inFlight >= state.limit.concurrency) return Infinity;
    if (!state.window) return 0;
    const now = this.clock.now();
    state.starts = state.starts.filter((at) => at > now - state.window!.interval);
    return earliestSend(state.starts, state.window, now) - now;
  }

  /** Counts a row of `model` as started; the returned release ends it (once). */
  start(model: string): () => void {
    const state = this.models.get(model);
    if (!state) return () => undefined;
    state.inFlight++;
    if (state.window) state.starts.push(this.clock.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.inFlight--;
    };
  }
}
