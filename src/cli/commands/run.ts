import { EventEmitter } from 'node:events';
import { printable } from '../../core/printable.js';
import { openQueries } from '../../journal/open-store.js';
import type { Item, JournalQueries } from '../../journal/index.js';
import { formatRowError } from '../../manifest/types.js';
import { type RunEvents, exitMeaning } from '../../pipeline/index.js';
import type { RunJobResult } from '../../api/run-job.js';
import { knownErrorExit } from '../../api/error-exit.js';
import { runResolvedJob } from '../../api/run-job.js';
import { reportHeader } from '../../report/model.js';
import { renderReportTable } from '../../report/write-report.js';
import {
  changedRowAdvice,
  uncertainAdvice,
  unrecordedAnswerAdvice,
  unrecordedTaskAdvice,
  type WithheldRow,
} from '../../job/advice.js';
import { gatewayAccess, type ResolvedJob } from '../../job/job.js';
import { jobFromArgs } from '../job-args.js';
import { attachProgress, chooseProgressMode, wantsAscii } from '../live/progress-view.js';
import { installSignals } from '../signals.js';
import { readStanding, standingLines } from '../../job/standing-read.js';
import { runAddressOf } from '../../job/run-address.js';
import { journalArgOf, planCommandOf } from '../../core/job-address.js';
import type { RunRecord } from '../../core/standing.js';
import { hostname } from 'node:os';
import { uncertainRows } from '../uncertain-rows.js';
import { runDocument } from '../run-document.js';

const SUMMARY_ROWS = 40;
const ADVICE_ROWS = 20;

export async function run(argv: string[]): Promise<number> {
  const job = jobFromArgs('run', argv, new Date());
  if (!job) return 0;
  const access = job.flags['ingest-only']
    ? { baseUrl: 'http://127.0.0.1/v1', apiKey: '' }
    : gatewayAccess(job.flags, process.env);
  return execute(job, access);
}

async function execute(job: ResolvedJob, access: { baseUrl: string; apiKey: string }): Promise<number> {
  const { flags } = job;
  const events = new EventEmitter<RunEvents>();
  const progress = await attachProgress(
    events,
    chooseProgressMode(flags.progress, flags.quiet, process.stderr, process.env),
    process.stderr,
    { ascii: wantsAscii(process.env) },
  );
  const signals = installSignals();
  let result: RunJobResult;
  try {
    result = await runResolvedJob(job, access, {
      events,
      interrupt: signals.interrupt,
      forceInterrupt: signals.force,
      // The summary first: a notification that is slow to deliver must not hold back what the terminal shows.
      // Then a signal ends the process as usual: nothing of the run is left to stop.
      beforeNotified: async (outcome) => {
        await printOutcome(job, outcome, flags.json);
        signals.dispose();
      },
    });
  } catch (err) {
    // A run that ended before it began (skipped, the job busy, a full disk) still answers --json with one
    // document; the line on stderr and the exit code follow as for any such error.
    if (flags.json) printEndedEarly(job, err);
    throw err;
  } finally {
    signals.dispose();
    progress.finish();
  }
  return result.exitCode;
}

function printEndedEarly(job: ResolvedJob, err: unknown): void {
  const known = knownErrorExit(err);
  if (!known) return;
  process.stdout.write(
    `${JSON.stringify({
      job: job.name,
      exit_code: known.exitCode,
      reason: known.meaning,
      error: known.line,
      state: job.statePath,
      out: job.outDir,
      counts: null,
    })}\n`,
  );
}

async function printOutcome(job: ResolvedJob, result: RunJobResult, json: boolean): Promise<void> {
  if (result.ingest && !result.ingest.ok) {
    for (const entry of result.ingest.invalid.slice(0, 50)) {
      for (const e of entry.errors) process.stderr.write(`${formatRowError(e)}\n`);
    }
    const plan = planCommandOf(runAddressOf(job));
    if (result.ingest.invalidCount > 50)
      process.stderr.write(`... and more${plan ? `: run \`${plan}\` for the full list` : ''}\n`);
    for (const problem of result.ingest.problems) process.stderr.write(`gbatch run: ${printable(problem)}\n`);
    process.stderr.write('gbatch run: nothing was sent\n');
  }
  // The journal at the path is not this run's (deleted, replaced) or no longer its to write: say so first.
  for (const line of result.journalLost?.lines ?? []) process.stderr.write(`gbatch run: ${line}\n`);
  for (const line of unrecordedTaskAdvice(result.journalLost?.unrecordedTasks ?? [], namedJournal(job)))
    process.stderr.write(`${line}\n`);
  for (const line of unrecordedAnswerAdvice(result.journalLost?.unrecordedAnswers ?? [], namedJournal(job)))
    process.stderr.write(`${line}\n`);
  await printSummary(job, result, json);
}

async function printSummary(job: ResolvedJob, result: RunJobResult, json: boolean): Promise<void> {
  const why = exitMeaning(result);
  if (json) {
    process.stdout.write(`${JSON.stringify(runDocument(job, result, why, namedJournal(job)))}\n`);
    return;
  }
  const quiet = job.flags.quiet;
  const advice: string[] = [];
  let standingRead = false;
  if (result.ingest?.ok && !result.journalLost) {
    const journal = await openQueries(job.statePath, { job: job.name });
    try {
      const standing = await readStanding(journal, runAddressOf(job), runEnded(result), {
        pid: process.pid,
        host: hostname(),
      });
      standingRead = true;
      advice.push(...standingLines(standing).map(printable));
      // A cron log (--quiet) has the standing alone: what happened, what needs a person and the commands for it.
      if (!quiet) {
        const header = await reportHeader(journal, job.name, result.budgetUsd ?? null);
        process.stdout.write(
          `${await renderReportTable(journal, header, { rows: SUMMARY_ROWS, journalArg: namedJournal(job) })}\n`,
        );
        advice.push(...(await detailedAdvice(journal, job, result)));
      }
    } finally {
      await journal.close();
    }
  }
  // Without a standing (nothing ingested, the journal lost) the exit code's meaning is all there is to say.
  const lines = quiet && standingRead ? advice : ['', why, ...advice];
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** What the run's last lines add to the standing: the uncertain rows and the changed rows skipped, row by row. */
async function detailedAdvice(journal: JournalQueries, job: ResolvedJob, result: RunJobResult): Promise<string[]> {
  const advice: string[] = [];
  const named = namedJournal(job);
  if (result.exitCode === 4)
    advice.push(
      '',
      ...uncertainAdvice(await uncertainRows(journal, ADVICE_ROWS), (await journal.counts()).uncertain, named),
    );
  const skipped = result.ingest?.skippedChanged ?? [];
  if (skipped.length > 0)
    advice.push(...changedRowAdvice(await withheldRows(journal, skipped.slice(0, ADVICE_ROWS)), skipped.length, named));
  return advice;
}

/** The rows a run skipped as changed, as the journal holds them now. */
async function withheldRows(
  journal: Pick<JournalQueries, 'get' | 'abandonedWhileUncertain'>,
  skipped: ReadonlyArray<{ id: string }>,
): Promise<WithheldRow[]> {
  const rows: Item[] = [];
  for (const { id } of skipped) {
    const item = await journal.get(id);
    if (item) rows.push(item);
  }
  const abandoned = await journal.abandonedWhileUncertain(rows.filter((r) => r.state === 'failed').map((r) => r.id));
  return rows.map((r) => ({ id: r.id, state: r.state, abandonedWhileUncertain: abandoned.has(r.id) }));
}

/** How commands suggested after the run name the job: as it was started (never with the URL's password). */
function namedJournal(job: ResolvedJob): string {
  return journalArgOf(runAddressOf(job));
}

/** This run's ending, as the journal's `runs` table keeps it once recorded. */
function runEnded(result: RunJobResult): RunRecord {
  return {
    ended: true,
    exitCode: result.exitCode,
    stopReason: result.stopReason ?? null,
    message: result.stopMessage ?? null,
  };
}
