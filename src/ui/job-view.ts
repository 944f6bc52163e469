// What the dashboard shows of a job, read from its journal: the report's own figures (reportHeader, the
// same shaping as `report --format json`, so the page and the report cannot disagree), its standing,
// runners and last run, and its problems grouped by cause with the commands that act on them.
import { finalBatchOf, finalBatchRefusal } from '../core/final-batch.js';
import { startForecastOf, type StartForecast } from '../core/start-forecast.js';
import { basename } from 'node:path';
import { TERMINAL, type ItemState } from '../core/states.js';
import {
  invalidRowText,
  type JobCancel,
  type JournalJob,
  type JournalQueries,
  type JournalReports,
  type JournalRunReads,
  type RunnerView,
} from '../journal/index.js';
import { jobAddress } from '../job/advice.js';
import { journalArgOf, type JobAddress } from '../core/job-address.js';
import { lastRunSummary } from '../report/last-run.js';
import { reportHeader, reportItem, type ReportHeader } from '../report/model.js';
import { PROBLEM_STATES, ProblemGrouper, type ProblemGroup } from '../report/html/problems.js';
import type { LastRunSummary } from '../report/html/sections.js';
import { jobActivity, type JobActivity } from './job-activity.js';
import { jobStanding, type Standing } from './job-standing.js';
import { readStanding } from '../job/standing-read.js';
import type { Standing as ToldStanding } from '../core/standing.js';

/** Problem rows read to group them by cause: a job with more shows the groups of its first ones. */
export const PROBLEM_ROWS_READ = 2000;

export interface JobSummary {
  key: string;
  name: string;
  header: ReportHeader;
  standing: Standing;
  runners: RunnerView[];
  /** Runners whose lease is live: while there are any, retry waits (src/ui/actions.ts). */
  liveRunners: number;
  activity: JobActivity;
  /** Rows in a state no run moves out of by itself. */
  finished: number;
  cancel: JobCancel | undefined;
  /** How a command names this job's journal, pasteable. */
  journalArg: string;
  /** How the job is addressed: the commands the page suggests are built from it. */
  address: JobAddress;
  lastRun: LastRunSummary | null;
  manifest: string | null;
  /** Why no action may change the job (a final `gbatch serve` batch), or undefined. */
  frozen: string | undefined;
  /** The forecast the job started with (core/start-forecast.ts), or undefined when it keeps none. */
  forecast: StartForecast | undefined;
}

export interface JobPage extends JobSummary {
  /** What happened and what needs a person, as status and the report tell it (core/standing.ts): the headline. */
  told: ToldStanding;
  problems: { groups: ProblemGroup[]; ungrouped: number; read: number; total: number };
}

export async function jobSummary(job: JournalJob, journal: JournalRunReads & JournalReports): Promise<JobSummary> {
  const record = await journal.getJob();
  const name = record?.name ?? basename(journal.location, '.db');
  const activity = await jobActivity(journal);
  const header = await reportHeader(journal, name, record?.budgetUsd ?? null, {
    startedAt: activity.firstAt ?? undefined,
    endedAt: activity.lastAt ?? undefined,
  });
  const counts = await journal.counts();
  const runners = await journal.runners();
  const cancel = await journal.jobCancel();
  const lastRun = await journal.lastRun();
  const orphans = await journal.orphans(0);
  const liveRunners = runners.filter((r) => r.liveness.alive).length;
  const standing = jobStanding({
    counts,
    liveRunners,
    cancelled: cancel !== undefined,
    lastRun: lastRun && { ...lastRun, ended: lastRun.endedAt !== null },
    orphansWaiting: orphans.total,
  });
  const finished = (Object.entries(counts) as Array<[ItemState, number]>)
    .filter(([state]) => TERMINAL.has(state))
    .reduce((n, [, rows]) => n + rows, 0);
  const onDatabase = journal.adapter === 'postgres';
  const address = jobAddress({
    file: job.commandLocation ?? journal.location,
    name: record?.name,
    server: onDatabase ? { fromEnv: false } : undefined,
    options: record?.options,
  });
  return {
    key: job.key,
    name,
    header,
    standing,
    runners,
    liveRunners,
    activity,
    finished,
    cancel,
    journalArg: journalArgOf(address),
    address,
    lastRun: lastRunSummary(lastRun),
    manifest: record?.manifest ?? null,
    frozen: frozenBecause(record?.options),
    forecast: startForecastOf(record?.options),
  };
}

function frozenBecause(options: Record<string, unknown> | undefined): string | undefined {
  const final = finalBatchOf(options);
  return final && finalBatchRefusal(final);
}

/** What the live stream compares to tell whether a job moved since its last frame. */
export function summaryKey(summary: JobSummary): string {
  const runners = summary.runners.map((r) => [r.runnerId, r.liveness.alive, r.rows, r.heartbeatAt, r.cancelSeenAt]);
  const { header, standing, activity, cancel, lastRun } = summary;
  return JSON.stringify([header, standing, activity, cancel, lastRun, runners]);
}

export async function jobPage(job: JournalJob, journal: JournalQueries, known?: JobSummary): Promise<JobPage> {
  const summary = known ?? (await jobSummary(job, journal));
  const lastRun = await journal.lastRun();
  const told = await readStanding(journal, summary.address, lastRun && { ...lastRun, ended: lastRun.endedAt !== null });
  const grouper = new ProblemGrouper(summary.address, told.frozen);
  let read = 0;
  for await (const item of journal.iterate({ states: PROBLEM_STATES })) {
    grouper.add(reportItem(item), invalidRowText(item.contentHash));
    if (++read >= PROBLEM_ROWS_READ) break;
  }
  const total = PROBLEM_STATES.reduce((n, state) => n + (summary.header.totals.by_state[state] ?? 0), 0);
  return { ...summary, told, problems: { ...grouper.finish(), read, total } };
}
