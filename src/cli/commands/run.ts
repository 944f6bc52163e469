import { EventEmitter } from 'node:events';
import { printable } from '../../core/printable.js';
import { printableLocation } from '../../journal/database-url.js';
import { openStore } from '../../journal/open-store.js';
import { formatRowError } from '../../manifest/types.js';
import type { RunEvents } from '../../pipeline/context.js';
import { runJob, type RunResult } from '../../pipeline/runner.js';
import { reportHeader } from '../../report/model.js';
import { renderReportTable } from '../../report/write-report.js';
import { journalArg, uncertainAdvice } from '../advice.js';
import { gatewayAccess, jobFromArgs, type ResolvedJob } from '../job.js';
import { attachProgress, chooseProgressMode, wantsAscii } from '../live/progress-view.js';
import { installSignals } from '../signals.js';
import { uncertainRows } from '../uncertain-rows.js';

const SUMMARY_ROWS = 40;
const ADVICE_ROWS = 20;

export async function run(argv: string[]): Promise<number> {
  const job = jobFromArgs('run', argv, new Date());
  if (!job) return 0;
  const access = job.flags['ingest-only'] ? { baseUrl: 'http://127.0.0.1/v1', apiKey: '' } : gatewayAccess(job.flags, process.env);
  return execute(job, access);
}

async function execute(job: ResolvedJob, access: { baseUrl: string; apiKey: string }): Promise<number> {
  const { flags } = job;
  const events = new EventEmitter<RunEvents>();
  const progress = attachProgress(events, chooseProgressMode(flags.progress, flags.quiet, process.stderr, process.env), process.stderr, { ascii: wantsAscii(process.env) });
  const signals = installSignals();
  let result: RunResult;
  try {
    result = await runJob({
      jobName: job.name,
      manifests: job.manifests,
      statePath: job.statePath,
      pricing: job.pricing,
      budgetUsd: flags.budget,
      liftBudget: flags['no-budget'],
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      skipInvalid: flags['skip-invalid'],
      journalSync: flags['journal-sync'] as 'full' | 'off',
      jobOptions: { ...flags, ...(flags.journal !== undefined ? { journal: printableLocation(flags.journal) } : {}), source: job.source, out: job.outDir, pricing: job.pricingSource },
      interrupt: signals.interrupt,
      forceInterrupt: signals.force,
      events,
      ingestOnly: flags['ingest-only'],
      maxResponseBytes: flags['max-response-bytes']!,
      settings: {
        outDir: job.outDir,
        concurrency: flags.concurrency!,
        pollIntervalMs: flags['poll-interval']! * 1000,
        pollConcurrency: flags['poll-concurrency']!,
        downloadConcurrency: flags['download-concurrency']!,
        maxSubmitAttempts: flags['max-attempts']!,
        resubmitUncertainText: flags['resubmit-uncertain-text'],
        maxAutoResubmits: 3,
        rpm: flags.rpm,
        deadlineAt: job.deadlineAt,
        deadlineGraceMs: flags['deadline-grace']! * 1000,
        noWait: flags['no-wait'],
        budgetMayOverrun: flags['budget-may-overrun'],
      },
    });
  } finally {
    signals.dispose();
    progress.finish();
  }
  if (result.ingest && !result.ingest.ok) {
    for (const entry of result.ingest.invalid.slice(0, 50)) {
      for (const e of entry.errors) process.stderr.write(`${formatRowError(e)}\n`);
    }
    if (result.ingest.invalidCount > 50) process.stderr.write(`... and more: run \`gbatch plan ${job.source}\` for the full list\n`);
    for (const problem of result.ingest.problems) process.stderr.write(`gbatch run: ${printable(problem)}\n`);
    process.stderr.write('gbatch run: nothing was sent\n');
  }
  // The journal at the path is not this run's (deleted, replaced) or no longer its to write: say so first.
  for (const line of result.journalLost?.lines ?? []) process.stderr.write(`gbatch run: ${line}\n`);
  if (signals.interrupt.aborted) result = { ...result, exitCode: result.exitCode === 0 ? 75 : result.exitCode };
  await printSummary(job, result, flags.json);
  return result.exitCode;
}

async function printSummary(job: ResolvedJob, result: RunResult, json: boolean): Promise<void> {
  const why = explain(result);
  if (json) {
    process.stdout.write(`${JSON.stringify({
      job: job.name, exit_code: result.exitCode, reason: why, state: job.statePath, out: job.outDir,
      counts: result.counts, spent_usd: result.spend.actualUsd, reserved_usd: result.spend.reservedUsd, budget_usd: result.budgetUsd ?? null,
      stop_reason: result.stopReason ?? null, stop_message: result.stopMessage ?? null, output_error: result.outputFailure?.message ?? null,
      ...(result.journalLost ? { journal_lost: { saved_copy: result.journalLost.savedCopy ?? null, lines: result.journalLost.lines } } : {}),
      ingest: result.ingest ? {
        rows: result.ingest.rows, inserted: result.ingest.inserted, unchanged: result.ingest.unchanged, replaced: result.ingest.replaced,
        invalid: result.ingest.invalidCount, conflicts: result.ingest.conflicts.length,
      } : null,
      recovered_uncertain: result.recovery?.madeUncertain ?? [], auto_resubmitted: result.recovery?.resubmitted ?? [],
      polls: result.polls, download_failures: result.downloadFailures, journal_commits: result.journalCommits,
    })}\n`);
    return;
  }
  let advice: string[] = [];
  if (result.ingest?.ok && !result.journalLost) {
    const journal = await openStore(job.statePath, { job: job.name, readonly: true });
    try {
      const header = await reportHeader(journal, job.name, result.budgetUsd ?? null);
      process.stdout.write(`${await renderReportTable(journal, header, SUMMARY_ROWS)}\n`);
      const named = journalArg(journal.location, job.name, journal.adapter === 'postgres' ? { fromEnv: job.journalFromEnv } : undefined);
      if (result.exitCode === 4) advice = uncertainAdvice(await uncertainRows(journal, ADVICE_ROWS), (await journal.counts()).uncertain, named);
      if (result.exitCode === 1 && result.counts.failed + result.counts.rejected > 0) advice = [`To send them again: gbatch retry ${named} --failed --rejected   (or name the item ids)`];
    } finally {
      await journal.close();
    }
  }
  process.stdout.write(`\n${why}\n${advice.map((line) => `${line}\n`).join('')}`);
}

function explain(result: RunResult): string {
  switch (result.exitCode) {
    case 0: return result.stopReason === 'ingested'
      ? `Ingested: ${result.ingest?.inserted ?? 0} new row(s) in the journal; nothing was sent.`
      : 'Done: every item is finished.';
    case 1: return 'Finished, but some items failed or were rejected (see `gbatch status`).';
    case 2: if (result.stopReason === 'journal-lost') return 'Stopped: the journal file was deleted or replaced during the run (see above); nothing more was sent.';
      if (result.outputFailure) return outputAdvice(result);
      return result.stopReason === 'auth'
      ? 'Stopped: the gateway refused the API key (401). Rows stay pending; fix GATEWAY_API_KEY and run again.'
      : 'Refused: nothing was sent.';
    case 3: return result.stopReason === 'balance'
      ? "Stopped: the gateway's balance ran out (402). Top up, then run again: deferred items are sent then."
      : "Stopped by the job's budget: some items are deferred. Run again with a higher --budget (or --no-budget) to send them.";
    case 4: return 'Some items are uncertain (their submission may have reached the gateway): decide with `gbatch resolve`.';
    case 75: if (result.stopReason === 'lock-lost') return 'Stopped: this run lost its journal lock; the runner that holds it now carries on.';
      if (result.outputFailure) return outputAdvice(result);
      return result.stopReason === 'no-wait' ? 'Submitted; tasks are in flight. Run again later to poll and download.'
      : result.stopReason === 'unreachable' ? 'Stopped: the gateway is unreachable (see the line above); nothing more was sent. Run again once it is back.'
      : result.stopReason === 'deadline' ? 'Stopped at the deadline; run again to continue.'
      : 'Stopped before all work was done; run again to continue.';
    default: return `Exit ${result.exitCode}.`;
  }
}

function outputAdvice(result: RunResult): string {
  return `Stopped: ${result.outputFailure!.message}. Every answer received is kept in the journal; ` +
    'make room or fix the path, then run again: nothing already answered is sent again.';
}
