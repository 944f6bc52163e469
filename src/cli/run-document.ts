// The document `gbatch run --json` prints at its end: the run's exit, counts and money, what the journal lost,
// what was ingested and what recovery did, in the contract's snake_case keys.
import { recordedAnswerCommand, unrecordedTaskCommand } from '../job/advice.js';
import type { ResolvedJob } from '../job/job.js';
import type { RunJobResult } from '../api/run-job.js';

export function runDocument(job: ResolvedJob, result: RunJobResult, why: string, journalArg: string) {
  return {
    job: job.name,
    exit_code: result.exitCode,
    reason: why,
    state: job.statePath,
    out: job.outDir,
    counts: result.counts,
    spent_usd: result.spend.actualUsd,
    reserved_usd: result.spend.reservedUsd,
    budget_usd: result.budgetUsd ?? null,
    stop_reason: result.stopReason ?? null,
    stop_message: result.stopMessage ?? null,
    output_error: result.outputFailure?.message ?? null,
    ...(result.journalLost
      ? {
          journal_lost: {
            saved_copy: result.journalLost.savedCopy ?? null,
            lines: result.journalLost.lines,
            unrecorded_tasks: (result.journalLost.unrecordedTasks ?? []).map((t) => ({
              id: t.id,
              task_id: t.taskId,
              resolve: unrecordedTaskCommand(t, journalArg),
            })),
            unrecorded_answers: (result.journalLost.unrecordedAnswers ?? []).map((a) => ({
              id: a.id,
              attempt: a.attempt,
              resolve: recordedAnswerCommand(a, journalArg),
            })),
          },
        }
      : {}),
    ingest: result.ingest
      ? {
          rows: result.ingest.rows,
          inserted: result.ingest.inserted,
          unchanged: result.ingest.unchanged,
          replaced: result.ingest.replaced,
          invalid: result.ingest.invalidCount,
          conflicts: result.ingest.conflicts.length,
          skipped_changed: result.ingest.skippedChanged.length,
        }
      : null,
    recovered_uncertain: result.recovery?.madeUncertain ?? [],
    auto_resubmitted: [...(result.recovery?.resubmitted ?? []), ...(result.autoRetried?.resubmitted ?? [])],
    auto_retried: result.autoRetried?.requeued ?? [],
    polls: result.polls,
    download_failures: result.downloadFailures,
    budget_refusals: result.budgetRefusals ?? 0,
    journal_commits: result.journalCommits,
  };
}
