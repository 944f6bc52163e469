// `gbatch status`'s data: everything its text and JSON views show, read from the journal in one place.
// The views (status-text.ts, status-json.ts) are pure functions of it, as the live view's frame is of
// its snapshot.
import type { ItemKind, ItemState } from '../../core/states.js';
import { countsForExit } from '../../core/orphans.js';
import type { JournalQueries, OrphanSummary, RunnerView } from '../../journal/index.js';
import { reportHeader, type ReportTotals } from '../../report/model.js';
import { timingSummary, type TimingJson } from '../../report/timing-summary.js';
import { resendable, type UncertainRow } from '../../job/advice.js';
import { lastRunView, type LastRunView } from '../last-run.js';
import type { JudgedHolder } from '../runner-line.js';
import { gatherHealth, runRecord, type Health } from '../status-check.js';
import { journalArgOf, type JobAddress } from '../../core/job-address.js';
import { standingOf, type Standing } from '../../core/standing.js';
import { finalBatchOf } from '../../core/final-batch.js';
import { startForecastOf, type StartForecast } from '../../core/start-forecast.js';
import { uncertainRows } from '../uncertain-rows.js';

/** Rows listed per state that needs a look (the rest are counted). */
export const ATTENTION_LIMIT = 20;

export const ATTENTION_STATES = ['uncertain', 'deferred', 'failed', 'rejected', 'invalid'] as const;
export type AttentionState = (typeof ATTENTION_STATES)[number];

export interface AttentionItem {
  id: string;
  kind: ItemKind;
  task_id: string | null | undefined;
  error: string | null;
}

export interface StatusData {
  /** The job's name, when the journal has a job. */
  job: string | null;
  /** Where the journal is (a path, or a database URL without its password). */
  file: string;
  adapter: 'sqlite' | 'postgres';
  /** How a command names this journal in the advice it prints. */
  named: string;
  budget: number | null;
  totals: ReportTotals;
  timing: TimingJson;
  counts: Record<ItemState, number>;
  /** Up to ATTENTION_LIMIT rows of each state that needs a look. */
  attention: Record<AttentionState, AttentionItem[]>;
  /** The uncertain rows with their submission time and prompt start (empty when none is uncertain). */
  uncertain: UncertainRow[];
  runners: readonly RunnerView[];
  /** The live runner, else the first one the journal knows. */
  holder: JudgedHolder | undefined;
  orphans: OrphanSummary;
  /** The listed orphaned rows `gbatch retry <ids>` has the next run send (src/job/advice.ts). */
  orphansResent: string[];
  lastRun: LastRunView | null;
  health: Health;
  /** The forecast the job started with, while rows remain to send or settle; else null. */
  forecast: StartForecast | null;
  /** What happened, what needs a person and the commands for each: what every view leads with. */
  standing: Standing;
}

export async function gatherStatus(journal: JournalQueries, address: JobAddress): Promise<StatusData> {
  const named = journalArgOf(address);
  const file = journal.location;
  const job = await journal.getJob();
  const budget = job?.budgetUsd ?? null;
  const timing = await timingSummary(journal);
  const { totals } = await reportHeader(journal, job?.name ?? file, budget, timing.timeline);
  const attention = {} as Record<AttentionState, AttentionItem[]>;
  for (const state of ATTENTION_STATES) {
    attention[state] = (await journal.list([state], ATTENTION_LIMIT)).map((i) => ({
      id: i.id,
      kind: i.kind,
      task_id: i.taskId,
      error: i.lastError?.message ?? null,
    }));
  }
  const runners = await journal.runners();
  const judged = runners.find((r) => r.liveness.alive) ?? runners[0];
  const holder = judged && { pid: judged.pid, host: judged.host, heartbeatAt: judged.heartbeatAt, ...judged.liveness };
  const counts = await journal.counts();
  const uncertain = counts.uncertain > 0 ? await uncertainRows(journal, ATTENTION_LIMIT) : [];
  const orphans = await journal.orphans(ATTENTION_LIMIT);
  const abandoned = await journal.abandonedWhileUncertain(
    orphans.rows.filter((r) => r.state === 'failed').map((r) => r.id),
  );
  const orphansResent = resendable(orphans.rows.map((r) => ({ ...r, abandonedWhileUncertain: abandoned.has(r.id) })));
  // Orphaned rows that wait are no run's work: they neither defer nor fail what `run` would exit with.
  const exitCounts = countsForExit(counts, orphans.counts);
  const lastRun = await lastRunView(journal, runners, Date.now(), exitCounts);
  const health = await gatherHealth(journal, runners, lastRun, exitCounts, Date.now(), named);
  const finalBatch = finalBatchOf(job?.options);
  const forecast = rowsRemain(counts) ? (startForecastOf(job?.options) ?? null) : null;
  const standing = standingOf({
    counts: exitCounts,
    liveRunners: runners.filter((r) => r.liveness.alive).length,
    cancelled: health.cancelled !== null,
    lastRun: runRecord(lastRun),
    orphans: { waiting: orphans.total, resendable: orphansResent },
    uncertainIds: uncertain.map((u) => u.id),
    ...(finalBatch ? { finalBatch } : {}),
    address,
  });
  return {
    job: job?.name ?? null,
    file,
    adapter: journal.adapter,
    named,
    budget,
    totals,
    timing: timing.json,
    counts,
    attention,
    uncertain,
    runners,
    holder,
    orphans,
    orphansResent,
    lastRun,
    health,
    forecast,
    standing,
  };
}

/** States of rows still to send or settle: while any is held, the job's forecast is still news. */
const REMAINING_STATES = [
  'pending',
  'submitting',
  'submitted',
  'running',
  'succeeded',
  'deferred',
  'uncertain',
] as const;

function rowsRemain(counts: Record<ItemState, number>): boolean {
  return REMAINING_STATES.some((state) => counts[state] > 0);
}
