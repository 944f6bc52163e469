// `status --check` and the health part of `status --json`: whether something needs an operator (one line
// per reason), the exit code `run` would give now, the runner's liveness, durations and the last error.
// The decisions are pure (healthOf); gatherHealth reads the journal for them.
import { commandNaming } from '../core/job-address.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import type { ItemState } from '../core/states.js';
import { printable } from '../core/printable.js';
import { whatHappened, type Need, type RunRecord } from '../core/standing.js';
import { exitCodeFor } from '../pipeline/terms.js';
import type { Item, JobCancel, JournalQueries, RunnerView } from '../journal/index.js';
import type { LastRunView } from './last-run.js';

/** The exit code of `status --check` when something needs an operator: the 1 of "finished, but look". */
export const CHECK_FAILED = EXIT_CODE.someFailed;

export interface HealthFacts {
  adapter: 'sqlite' | 'postgres';
  counts: Record<ItemState, number>;
  runners: readonly RunnerView[];
  lastRun: LastRunView | null;
  cancel: JobCancel | undefined;
  /** The job's creation (ms), when it has run. */
  createdAt: number | undefined;
  /** The most recent error an item carries (failed, rejected, uncertain, deferred), if any. */
  lastError: { id: string; state: ItemState; message: string; at: number } | undefined;
  now: number;
  /**
   * How commands name the job, as the operator named it (a job file, or a name with --state): they are pasted as
   * printed.
   */
  job?: string;
}

export interface Health {
  needsOperator: string[];
  wouldExit: number;
  liveness: {
    state: 'alive' | 'dead' | 'none';
    pid: number | null;
    host: string | null;
    heartbeat_age_s: number | null;
  };
  durations: {
    job_age_s: number | null;
    since_last_run_start_s: number | null;
    since_last_run_end_s: number | null;
    last_run_s: number | null;
  };
  lastError: { id: string; state: ItemState; message: string; at: string } | null;
  cancelled: { at: string; reason: string } | null;
}

/** What happened to the job, read from the facts health is judged on. */
export function happenedOf(f: HealthFacts, liveRunners: number): ReturnType<typeof whatHappened> {
  return whatHappened({
    counts: f.counts,
    liveRunners,
    cancelled: f.cancel !== undefined,
    lastRun: runRecord(f.lastRun),
  });
}

/** The last run as the standing reads it: one still running has not ended, and has not crashed either. */
export function runRecord(view: LastRunView | null): RunRecord | undefined {
  if (!view) return undefined;
  return {
    ended: view.ended_at !== null,
    exitCode: view.exit_code,
    stopReason: view.stop_reason,
    message: view.message,
  };
}

/**
 * The standing's needs that healthOf reports as reasons (uncertain rows, deferred ones). The others (failed and
 * refused rows no run sends again, orphans) wait for a person's decision without anything being stuck, billed twice
 * or held back: --check names them and exits 0.
 */
export const HEALTH_NEEDS: ReadonlySet<Need['what']> = new Set(['uncertain', 'deferred']);

const IN_FLIGHT_STATES: readonly ItemState[] = ['submitting', 'submitted', 'running', 'succeeded'];

export function healthOf(f: HealthFacts): Health {
  const live = f.runners.filter((r) => r.liveness.alive);
  // On SQLite the lock's one row; on a database, a runner that is gone still holding rows (not yet swept).
  const dead = f.runners.filter((r) => !r.liveness.alive && (f.adapter === 'sqlite' || r.rows > 0));
  const shown = live[0] ?? dead[0];
  const reasons: string[] = [];
  const { counts } = f;
  const listed = f.job === undefined ? '' : `; \`${commandNaming(f.job, 'status')}\` lists each with its commands`;
  if (counts.uncertain > 0)
    reasons.push(
      `${counts.uncertain} item(s) uncertain (the gateway may have them): decide with \`gbatch resolve\`${listed}`,
    );
  for (const runner of dead) {
    reasons.push(
      `runner pid ${runner.pid} on ${runner.host} is gone but still holds the job (heartbeat ${Math.round(runner.liveness.heartbeatAgeMs / 1000)} s ago): the next \`gbatch run\` takes over; its mid-request rows become uncertain`,
    );
  }
  const stop = f.lastRun?.running ? null : (f.lastRun?.stop_reason ?? null);
  if (counts.deferred > 0 || stop === 'budget' || stop === 'balance') {
    const by =
      stop === 'balance' ? "the gateway's balance (402): top up" : "the job's budget: raise --budget (or --no-budget)";
    reasons.push(`stopped by ${by}; ${counts.deferred} item(s) deferred`);
  }
  if (stop === 'auth') reasons.push('the last run stopped: the gateway refused the API key (401); fix GATEWAY_API_KEY');
  // Live runners carry the job on whatever the last run recorded (on a database it may be another runner's).
  if (happenedOf(f, live.length).kind === 'crashed' && stop !== 'internal-error' && dead.length === 0)
    reasons.push('the last run ended without recording how (killed or crashed): run again to resume');
  if (stop === 'internal-error')
    reasons.push(
      `the last run ended on an internal error (exit ${EXIT_CODE.internal}): ${printable(f.lastRun?.message ?? '')}`,
    );
  const inFlight = IN_FLIGHT_STATES.reduce((n, s) => n + counts[s], 0);
  if (f.cancel && inFlight > 0 && live.length === 0) {
    reasons.push(
      `the job is cancelled, but ${inFlight} item(s) already sent are not being settled: \`gbatch run\` polls and downloads them (it sends nothing new)`,
    );
  }
  const lastRunStart = f.lastRun ? Date.parse(f.lastRun.started_at) : undefined;
  const lastRunEnd = f.lastRun?.ended_at ? Date.parse(f.lastRun.ended_at) : undefined;
  const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.max(0, Math.round(ms / 1000)));
  return {
    needsOperator: reasons,
    // A live runner on SQLite holds the lock: a run started now would be refused (73) by default.
    wouldExit:
      f.adapter === 'sqlite' && live.length > 0 ? EXIT_CODE.busy : exitCodeFor({ counts, stoppedEarly: false }),
    liveness: {
      state: live.length > 0 ? 'alive' : dead.length > 0 ? 'dead' : 'none',
      pid: shown?.pid ?? null,
      host: shown?.host ?? null,
      heartbeat_age_s: shown ? Math.round(shown.liveness.heartbeatAgeMs / 1000) : null,
    },
    durations: {
      job_age_s: seconds(f.createdAt === undefined ? undefined : f.now - f.createdAt),
      since_last_run_start_s: seconds(lastRunStart === undefined ? undefined : f.now - lastRunStart),
      since_last_run_end_s: seconds(lastRunEnd === undefined ? undefined : f.now - lastRunEnd),
      last_run_s: seconds(lastRunStart === undefined ? undefined : (lastRunEnd ?? f.now) - lastRunStart),
    },
    lastError: f.lastError
      ? { ...f.lastError, message: printable(f.lastError.message), at: new Date(f.lastError.at).toISOString() }
      : null,
    cancelled: f.cancel ? { at: new Date(f.cancel.at).toISOString(), reason: f.cancel.reason } : null,
  };
}

/** The most recent error among the rows status already lists. */
export function latestError(rows: readonly Item[]): HealthFacts['lastError'] {
  let latest: Item | undefined;
  for (const row of rows) if (row.lastError && (!latest || row.updatedAt > latest.updatedAt)) latest = row;
  return latest
    ? { id: latest.id, state: latest.state, message: latest.lastError!.message, at: latest.updatedAt }
    : undefined;
}

export async function gatherHealth(
  journal: JournalQueries,
  runners: readonly RunnerView[],
  lastRun: LastRunView | null,
  counts: Record<ItemState, number>,
  now = Date.now(),
  job?: string,
): Promise<Health> {
  const rows = await journal.list(['failed', 'rejected', 'uncertain', 'deferred'], 200);
  return healthOf({
    adapter: journal.adapter,
    counts,
    runners,
    lastRun,
    cancel: await journal.jobCancel(),
    createdAt: (await journal.getJob())?.createdAt,
    lastError: latestError(rows),
    now,
    ...(job !== undefined ? { job } : {}),
  });
}

/** The health fields of `status --json`. */
export function healthJson(health: Health): Record<string, unknown> {
  return {
    would_exit: health.wouldExit,
    needs_operator: health.needsOperator,
    liveness: health.liveness,
    durations: health.durations,
    last_error: health.lastError,
    cancelled: health.cancelled,
  };
}
