// The account's pace over every request to the gateway: submissions, polls and content downloads take
// slots of one --rpm pacer (shared through the journal among runners on PostgreSQL); polls and
// downloads first take a slot of their own share (--poll-rpm), so a crowd of tasks never starves submissions.
import type { Clock } from '../../core/clock.js';
import { followUpRpm } from '../../core/rate-share.js';
import type { Coordination } from '../../journal/index.js';
import { bothPaced, rateWindow, SendPacer, UNPACED, type PacedSend } from './send-pacer.js';
import { SharedSendPacer, sharedSendInterval } from './shared-send-pacer.js';

export interface Pacer {
  /** Resolves when a request may leave (and counts it); rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<PacedSend>;
}

export interface RequestPacers {
  /** Submissions and chat calls: the account's pace. */
  submissions: Pacer | undefined;
  /** Polls and content downloads: their share, then the account's pace. */
  followUps: Pacer | undefined;
}

export function requestPacers(
  settings: { rpm?: number; pollRpm?: number },
  coordination: Coordination | undefined,
  account: string,
  clock: Clock,
): RequestPacers {
  const { rpm } = settings;
  const accountPacer =
    rpm === undefined
      ? undefined
      : coordination
        ? new SharedSendPacer(coordination, account, sharedSendInterval(rpm), clock)
        : new SendPacer(rateWindow(rpm), clock);
  const shareRpm = followUpRpm(rpm, settings.pollRpm);
  const share = shareRpm === undefined ? undefined : new SendPacer(rateWindow(shareRpm), clock);
  return { submissions: accountPacer, followUps: share ? chain(share, accountPacer) : accountPacer };
}

/** Both pacers' slots, taken in turn; the first is given back if the second is never granted. */
function chain(first: Pacer, then: Pacer | undefined): Pacer {
  if (!then) return first;
  return {
    async acquire(signal) {
      const a = await first.acquire(signal);
      let b: PacedSend;
      try {
        b = await then.acquire(signal);
      } catch (err) {
        a.done();
        throw err;
      }
      return bothPaced(a, b);
    },
  };
}

/** Paces one follow-up request: waits for its slot, and counts it from no earlier than it left. */
export async function pacedFollowUp<T>(
  pacers: RequestPacers | undefined,
  signal: AbortSignal,
  send: (onWire: () => void) => Promise<T>,
): Promise<T> {
  const paced = pacers?.followUps ? await pacers.followUps.acquire(signal) : UNPACED;
  try {
    return await send(() => paced.onWire());
  } finally {
    // Counted from when the exchange is over if nothing said earlier: never earlier than the wire.
    paced.onWire();
    paced.done();
  }
}
