// Counts refused connections across the whole run (submissions, polls, downloads): a few in a row
// with no answer in between mean the gateway is down, not slow, and the run stops with the cause.
import { observeReachability, REACHABLE, UNREACHABLE_AFTER, type Reachability } from '../../core/reachability.js';
import type { ConnectivityListener } from '../../gateway/client.js';
import type { GatewayTransportError } from '../../gateway/errors.js';

export class GatewayWatch implements ConnectivityListener {
  private state: Reachability = REACHABLE;
  private tripped = false;
  /** Called once, with the one line that says why, when the gateway counts as unreachable. */
  onUnreachable: ((head: string) => void) | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly limit = UNREACHABLE_AFTER,
  ) {}

  get unreachable(): boolean {
    return this.tripped;
  }

  answered(): void {
    if (!this.tripped) this.state = observeReachability(this.state, 'answered', this.limit).state;
  }

  refused(error: GatewayTransportError): void {
    if (this.tripped) return;
    const next = observeReachability(this.state, 'refused', this.limit);
    this.state = next.state;
    if (!next.unreachable) return;
    this.tripped = true;
    this.onUnreachable?.(unreachableHead(this.baseUrl, error, next.state.refusedInARow));
  }
}

/** "gateway unreachable at <url>: connect ECONNREFUSED 127.0.0.1:8080 (3 refused connections in a row)" */
export function unreachableHead(baseUrl: string, error: GatewayTransportError, refusedInARow: number): string {
  const cause = error.systemError?.message ?? error.message;
  const what = error.systemError?.code === 'ECONNREFUSED' ? 'refused connections' : 'failed connection attempts';
  return `gateway unreachable at ${baseUrl}: ${cause} (${refusedInARow} ${what} in a row)`;
}
