// `status`: how the last run ended, from the journal's `runs` table, and whether an operator should look.
import { hostname } from 'node:os';
import { STALE_AFTER_MS, type JournalReports, type JournalRunReads } from '../journal/index.js';
import type { ItemState } from '../core/states.js';
import { needsOperatorDecision } from '../pipeline/terms.js';
import { ATTENTION_STOPS } from '../core/run-ending.js';

export interface LastRunView {
  id: number;
  pid: number;
  host: string;
  started_at: string;
  /** Null while it runs, or when it was killed before it could record its end. */
  ended_at: string | null;
  exit_code: number | null;
  stop_reason: string | null;
  message: string | null;
  /** True when it is still running (it holds the journal's lock). */
  running: boolean;
  /**
   * True when an operator should look: the run was killed, stopped for a reason that needs one, or `run` would exit 4.
   */
  needs_attention: boolean;
}

export interface LockHolder {
  pid: number;
  host: string;
  heartbeatAt: number;
}

export async function lastRunView(
  journal: JournalRunReads & JournalReports,
  holders: readonly LockHolder[],
  now = Date.now(),
  counts?: Pick<Record<ItemState, number>, 'uncertain'>,
): Promise<LastRunView | null> {
  const run = await journal.lastRun();
  if (!run) return null;
  const undecided = needsOperatorDecision(counts ?? (await journal.counts()));
  // On a database several runners hold the job: the last run is running when it is any live one of them.
  const running =
    run.endedAt === null &&
    holders.some((holder) => holder.pid === run.pid && holder.host === run.host && holderAlive(holder, now));
  const killed = run.endedAt === null && !running;
  return {
    id: run.id,
    pid: run.pid,
    host: run.host,
    started_at: new Date(run.startedAt).toISOString(),
    ended_at: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
    exit_code: run.exitCode,
    stop_reason: run.stopReason,
    message: killed ? 'the run ended without recording how (killed or crashed); run again to resume' : run.message,
    running,
    needs_attention: killed || undecided || (run.stopReason !== null && ATTENTION_STOPS.has(run.stopReason)),
  };
}

/** The attention lines for `status`'s text form (none when the last run needs no look). */
export function lastRunLines(view: LastRunView | null): string[] {
  if (!view?.needs_attention) return [];
  const how =
    view.ended_at === null
      ? view.running
        ? 'is running'
        : 'did not finish'
      : `stopped (${view.stop_reason ?? 'items uncertain'}, exit ${view.exit_code ?? '?'})`;
  const text = (view.message ?? '').replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return [
    '',
    `last run ${how}, pid ${view.pid} on ${view.host}, started ${view.started_at}`,
    ...(text ? [`  ${text}`] : []),
  ];
}

/** A lock row left by a killed runner names a pid that is gone (this host) or stopped beating. */
function holderAlive(holder: LockHolder, now: number): boolean {
  if (now - holder.heartbeatAt >= STALE_AFTER_MS) return false;
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
