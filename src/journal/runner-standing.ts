// What every journal adapter shares about a runner's standing: how often it beats, when it counts as
// gone (its errors are in errors.ts).
import { positiveKnob } from '../core/test-knob.js';

/** A live runner refreshes its heartbeat this often. */
export const HEARTBEAT_MS = 2_000;
/** A lock of another host whose heartbeat is this old is abandoned (on this host, the pid decides). */
export const STALE_AFTER_MS = 30_000;

/** The stale threshold; GBATCH_LOCK_STALE_MS overrides it (a test knob: tests cannot wait 30 s). */
export function staleAfterMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'GBATCH_LOCK_STALE_MS', STALE_AFTER_MS);
}
