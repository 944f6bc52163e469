// Rows of a model at its --model-limit wait aside, in manifest order per model, while the claim loop
// goes on with other models' rows: one busy model never holds up the others.
import type { Clock } from '../../core/clock.js';
import type { Item } from '../../journal/index.js';
import type { ModelGate } from './model-gate.js';

/** Hands a row to the submission queue; calls `release` when its submission is over (or never started). */
export type Dispatch = (item: Item, release: () => void) => Promise<void>;

/** Rows waiting aside at most: past this the claim loop waits too, so a runner never hoards the job. */
export const MAX_WAITING = 256;

export class ModelLanes {
  private readonly waiting = new Map<string, Item[]>();
  private readonly timers = new Set<string>();
  private readonly dispatching = new Set<Promise<void>>();
  private listeners: Array<() => void> = [];
  private count = 0;

  constructor(
    private readonly gate: ModelGate,
    private readonly clock: Clock,
    private readonly dispatch: Dispatch,
    /** Aborted when the run stops sending: waiting rows are let go (they stay pending for a later run). */
    private readonly stop: AbortSignal,
  ) {
    stop.addEventListener('abort', () => this.pump(), { once: true });
  }

  /** Sends `item` now if its model allows, else keeps it aside until it does. */
  offer(item: Item): void {
    const queue = this.waiting.get(item.model) ?? [];
    queue.push(item);
    this.waiting.set(item.model, queue);
    this.count++;
    this.pump();
  }

  /** Resolves once fewer than MAX_WAITING rows wait aside. */
  async room(): Promise<void> {
    while (this.count >= MAX_WAITING && !this.stop.aborted) await this.change();
  }

  /** Resolves once no row waits aside and every hand-over is done (the rest is the queue's). */
  async drained(): Promise<void> {
    while (this.count > 0 || this.dispatching.size > 0) {
      if (this.dispatching.size > 0) await Promise.allSettled([...this.dispatching]);
      else await this.change();
    }
  }

  private pump(): void {
    for (const [model, queue] of this.waiting) {
      while (queue.length > 0) {
        if (this.stop.aborted) {
          this.count -= queue.length;
          queue.length = 0;
          break;
        }
        const waitMs = this.gate.waitMs(model);
        if (waitMs > 0) {
          if (Number.isFinite(waitMs)) this.wakeAfter(model, waitMs);
          break;
        }
        const item = queue.shift()!;
        this.count--;
        const release = this.gate.start(model);
        const handed = this.dispatch(item, () => {
          release();
          this.pump();
        }).finally(() => this.dispatching.delete(handed));
        this.dispatching.add(handed);
      }
      if (queue.length === 0) this.waiting.delete(model);
    }
    this.changed();
  }

  private wakeAfter(model: string, ms: number): void {
    if (this.timers.has(model)) return;
    this.timers.add(model);
    this.clock
      .sleep(ms, this.stop)
      .catch(() => undefined)
      .finally(() => {
        this.timers.delete(model);
        this.pump();
      });
  }

  private change(): Promise<void> {
    return new Promise((resolve) => this.listeners.push(resolve));
  }

  private changed(): void {
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
