// `run --if-running wait|skip|fail`: what a run does when it finds the job's runner alive (a nightly run
// still going when the next one starts). On SQLite one runner holds the journal's lock: `fail` (the
// default) ends with its own exit code, `skip` with another, `wait` polls the lock until it is free,
// bounded by --if-running-timeout and never past --deadline. On PostgreSQL many runners share a job by
// design: without --if-running a run joins; with it, the policy applies when any live runner is on the job.
import type { Clock } from '../../core/clock.js';
import { positiveKnob } from '../../core/test-knob.js';

import type { RunnerMembership, RunnerTakeover } from '../../journal/store.js';
import { JournalBusyError } from '../../journal/errors.js';
import { RunSkippedError } from '../../core/run-skipped-error.js';

export type IfRunning = 'wait' | 'skip' | 'fail';
export const IF_RUNNING_CHOICES: readonly IfRunning[] = ['wait', 'skip', 'fail'];

/** Default bound of `--if-running wait`, in seconds. */
export const DEFAULT_IF_RUNNING_TIMEOUT_S = 3600;
/** How often `wait` looks at the lock again. GBATCH_IF_RUNNING_POLL_MS overrides it (a test knob). */
export function ifRunningPollMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'GBATCH_IF_RUNNING_POLL_MS', 1000);
}

export interface OverlapPolicy {
  policy: IfRunning | undefined;
  /** `wait`: the most it waits, from now (ms). */
  timeoutMs: number;
  /** `wait` never waits past it (clock ms). */
  deadlineAt?: number | undefined;
  pollMs?: number;
}

/** The job's runner stayed alive for the whole of `--if-running wait`'s bound. */
export class WaitTimedOutError extends JournalBusyError {
  constructor(file: string, pid: number, host: string, waitedMs: number, why: 'timeout' | 'deadline') {
    super(file, pid, host);
    this.message =
      `${file}: the gbatch run pid ${pid} on ${host} still holds this job after waiting ${Math.round(waitedMs / 1000)} s` +
      ` (${why === 'deadline' ? 'the --deadline came first' : '--if-running-timeout'}); nothing was done`;
  }
}

function holderOf(err: JournalBusyError): string {
  return `the gbatch run pid ${err.pid} on ${err.host}`;
}

/**
 * Joins the job as its runner under the policy. Throws JournalBusyError (fail, or wait's bound reached),
 * or RunSkippedError (skip). `onWait` hears one line when a wait begins.
 */
export async function acquireRunner(
  membership: RunnerMembership,
  sharedRunners: boolean,
  policy: OverlapPolicy,
  clock: Clock,
  location: string,
  onWait: (line: string) => void,
): Promise<RunnerTakeover | undefined> {
  const started = clock.now();
  const bound = Math.min(started + policy.timeoutMs, policy.deadlineAt ?? Infinity);
  const pollMs = policy.pollMs ?? ifRunningPollMs();
  let said = false;
  for (;;) {
    try {
      if (sharedRunners && policy.policy !== undefined) await noLiveRunner(membership, location);
      return await membership.acquire();
    } catch (err) {
      if (!(err instanceof JournalBusyError)) throw err;
      if (policy.policy === 'skip') throw new RunSkippedError(holderOf(err));
      if (policy.policy !== 'wait') throw err;
      const now = clock.now();
      if (now >= bound) {
        throw new WaitTimedOutError(
          location,
          err.pid,
          err.host,
          now - started,
          bound === policy.deadlineAt ? 'deadline' : 'timeout',
        );
      }
      if (!said)
        onWait(
          `${holderOf(err)} is still running this job: waiting for it to end (--if-running wait, up to ${new Date(bound).toISOString()})`,
        );
      said = true;
      await clock.sleep(Math.min(pollMs, bound - now));
    }
  }
}

/** Where runners share a job: a live runner on the job counts as "running" for an explicit --if-running. */
async function noLiveRunner(membership: RunnerMembership, location: string): Promise<void> {
  const live = (await membership.runners()).find((r) => r.liveness.alive);
  if (live) throw new JournalBusyError(location, live.pid, live.host);
}
