// One --concurrency for several runs in one process (`gbatch serve`'s batches): a submission holds one
// of `size` slots while on the wire. A freed slot goes to the runs waiting in turn, oldest waiter of the
// next run first, so a run with many rows queued does not starve one with few.

export interface SendSlots {
  /** Resolves with the slot's release once one is free for `owner`; rejects if `signal` aborts first. */
  acquire(owner: string, signal?: AbortSignal): Promise<() => void>;
}

interface Waiter {
  grant: (release: () => void) => void;
  cancel: () => void;
}

export class FairSendSlots implements SendSlots {
  private free: number;
  /** Waiters by owner; the map's order is the turn (an owner served goes to the back). */
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(size: number) {
    this.free = size;
  }

  acquire(owner: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.free > 0 && this.waiting.size === 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const queue = this.waiting.get(owner);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue && at >= 0) queue.splice(at, 1);
        if (queue?.length === 0) this.waiting.delete(owner);
        reject(signal!.reason as Error);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        cancel: onAbort,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(owner);
      if (queue) queue.push(waiter);
      else this.waiting.set(owner, [waiter]);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOn();
    };
  }

  private handOn(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.free++;
      return;
    }
    const [owner, queue] = next.value;
    const waiter = queue.shift()!;
    this.waiting.delete(owner);
    if (queue.length > 0) this.waiting.set(owner, queue);
    waiter.grant(this.releaser());
  }
}
