// --rpm shared by every runner of a job: each send takes the account's next slot from the journal, so
// the gateway sees one pace for the account however many runners send.
import type { Clock } from '../../core/clock.js';
import type { Coordination } from '../../journal/index.js';
import { UNPACED, type PacedSend } from './send-pacer.js';

/**
 * The spacing between two sends of the account: a minute over `rpm`, plus 1 %: sends leave a few ms
 * early or late (each runner's own event loop and network), and a minute must never hold rpm + 1.
 */
export function sharedSendInterval(rpm: number): number {
  return Math.ceil((60_000 / rpm) * 1.01);
}

export class SharedSendPacer {
  constructor(
    private readonly coordination: Coordination,
    private readonly account: string,
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  /** Resolves when this send's slot has come; rejects if `signal` aborts first (the slot is then unused). */
  async acquire(signal?: AbortSignal): Promise<PacedSend> {
    signal?.throwIfAborted();
    const waitMs = await this.coordination.takeSendSlot(this.account, this.intervalMs);
    if (waitMs > 0) await this.clock.sleep(waitMs, signal);
    return UNPACED;
  }
}
