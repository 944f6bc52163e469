// The library's `openJournal`: a read-only view of a job's journal (SQLite file or PostgreSQL), found as
// `gbatch run` finds it. For dashboards and checks: counts, money, items, the report, the last run.
// Writing stays with runJob and the CLI's resolve/retry, which hold the rules a write must follow.
import { existsSync } from 'node:fs';
import type { ItemKind, ItemState } from '../core/states.js';
import type { Item } from '../journal/item.js';
import type { JobRecord } from '../journal/change.js';
import type { RunRecord } from '../journal/run-record.js';
import type { JournalQueries } from '../journal/store.js';
import { printableLocation } from '../journal/database-url.js';
import { isDatabaseUrl, openQueries } from '../journal/open-store.js';
import { reportHeader, type ReportHeader } from '../report/model.js';
import { resolveJob } from '../job/job.js';
import { UsageError } from '../job/options.js';
import { optionsToFlags, type JobOptions } from './job-options.js';

export interface OpenJournalOptions {
  /** A job file, a manifest, or a job's name: its journal is the one `gbatch run` would use. */
  job: string;
  /** Where the journal is, when not the job's default (state/<job>.db): `state` (SQLite) or `journal` (a path or postgres:// URL). */
  options?: Pick<JobOptions, 'state' | 'journal'>;
  /** Where GBATCH_JOURNAL_URL is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface JobJournal {
  /** The job's name in the journal. */
  readonly job: string;
  /** An SQLite path, or the database URL without its password. */
  readonly location: string;
  readonly adapter: 'sqlite' | 'postgres';
  /** Items per state (every state present, zeros included). */
  counts(): Promise<Record<ItemState, number>>;
  /** Settled spend and what is reserved for requests whose bill is not known yet, in USD. */
  spend(): Promise<{ actualUsd: number; reservedUsd: number }>;
  /** The job as the last run saved it (its budget and options), undefined before any run. */
  jobRecord(): Promise<JobRecord | undefined>;
  item(id: string): Promise<Item | undefined>;
  /** Every item (or those in the given states and kinds), in manifest order. */
  items(filter?: { states?: readonly ItemState[]; kinds?: readonly ItemKind[] }): AsyncGenerator<Item>;
  /** Totals and per-model sums: estimate vs actual, as `gbatch report` prints them. */
  report(): Promise<ReportHeader>;
  /** The last run's start, end, exit code and stop reason; times as ISO 8601 UTC, as `status --json` gives them. */
  lastRun(): Promise<LastRun | undefined>;
  close(): Promise<void>;
}

/** A run as the journal recorded it, its times as ISO 8601 UTC strings (`status --json`'s `last_run`). */
export interface LastRun {
  id: number;
  pid: number;
  host: string;
  startedAt: string;
  /** Null while the run is live, or for ever when it was killed before it could record its end. */
  endedAt: string | null;
  exitCode: number | null;
  stopReason: string | null;
  message: string | null;
}

function lastRunOf(run: RunRecord): LastRun {
  return {
    ...run,
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
  };
}

export async function openJournal(options: OpenJournalOptions): Promise<JobJournal> {
  const job = resolveJob(
    options.job,
    optionsToFlags(options.options ?? {}, 'openJournal options'),
    new Date(),
    options.env ?? process.env,
  );
  if (!isDatabaseUrl(job.statePath) && !existsSync(job.statePath)) {
    throw new UsageError(`${job.statePath}: no journal for ${job.name} yet (has it run?)`);
  }
  const store = await openQueries(job.statePath, { job: job.name });
  return view(store, job.name, printableLocation(job.statePath));
}

function view(store: JournalQueries, job: string, location: string): JobJournal {
  return {
    job,
    location,
    adapter: store.adapter,
    counts: () => store.counts(),
    spend: async () => {
      const spend = await store.spend();
      return { actualUsd: spend.actualUsd, reservedUsd: spend.reservedUsd };
    },
    jobRecord: () => store.getJob(),
    item: (id) => store.get(id),
    items: (filter) => store.iterate(filter ?? {}),
    report: async () => reportHeader(store, job, (await store.getJob())?.budgetUsd ?? null),
    lastRun: async () => {
      const run = await store.lastRun();
      return run && lastRunOf(run);
    },
    close: () => store.close(),
  };
}
