// The gateway's balance is the account's, not a batch's: the 402 one batch's run gets stops the
// submissions of every batch the server has live at that instant, before another request leaves (each
// run then ends its unsent requests `budget_exceeded`, as `run` defers them at a 402; what was accepted is
// still polled and downloaded). A batch created afterwards is not stopped: its first request finds out
// whether the balance was topped up meanwhile.

export class BalanceStop {
  /** Batches that were live at a 402: each of their runs starts stopped. */
  private readonly stopped = new Set<string>();
  /** The stop signal of each batch's run in progress. */
  private readonly runs = new Map<string, AbortController>();

  /** The signal a run of `batchId` stops on (already aborted for a batch that was live at a 402). */
  signalFor(batchId: string): AbortSignal {
    const controller = new AbortController();
    if (this.stopped.has(batchId)) controller.abort('balance');
    this.runs.set(batchId, controller);
    return controller.signal;
  }

  runEnded(batchId: string): void {
    this.runs.delete(batchId);
  }

  /** A 402: every batch in `live` stops sending now (those running at once, the others at their next run). */
  trip(live: Iterable<string>): boolean {
    let news = false;
    for (const batchId of live) {
      if (!this.stopped.has(batchId)) news = true;
      this.stopped.add(batchId);
      this.runs.get(batchId)?.abort('balance');
    }
    return news;
  }

  isStopped(batchId: string): boolean {
    return this.stopped.has(batchId);
  }

  /** The batch is final: nothing of it is kept. */
  forget(batchId: string): void {
    this.stopped.delete(batchId);
    this.runs.delete(batchId);
  }
}
