// What a run's exit code means and what the operator does next, in one sentence: the last line of
// `gbatch run`, and the `meaning` of its notifications and of the library's result.
import { EXIT_CODE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';
import type { IngestOutcome } from '../ingest/ingest-manifests.js';
import { conflictProblem } from '../journal/ingest-rules.js';
import { formatRowError } from '../manifest/types.js';
import type { RunResult } from './runner.js';

/** A run's result; the library's says null where the runner's says undefined (no early stop). */
export type RunOutcome = Pick<RunResult, 'exitCode' | 'ingest' | 'outputFailure' | 'counts'> & {
  stopReason: RunResult['stopReason'] | null;
};

export function exitMeaning(result: RunOutcome): string {
  switch (result.exitCode) {
    case EXIT_CODE.ok:
      return result.stopReason === 'ingested'
        ? `Ingested: ${result.ingest?.inserted ?? 0} new row(s) in the journal; nothing was sent.`
        : result.counts.cancelled > 0
          ? `Done: the job is cancelled (gbatch cancel); ${result.counts.cancelled} item(s) cancelled, never sent; everything sent before it is finished.`
          : result.ingest?.skippedChanged.length
            ? `Done: every item is finished; ${result.ingest.skippedChanged.length} changed row(s) skipped (--skip-changed), listed at the start.`
            : 'Done: every item is finished.';
    case EXIT_CODE.someFailed:
      return 'Finished, but some items failed or were rejected (see `gbatch status`).';
    case EXIT_CODE.usage:
      if (result.stopReason === 'journal-lost')
        return 'Stopped: the journal file was deleted or replaced during the run (see above); nothing more was sent.';
      if (result.outputFailure) return outputAdvice(result);
      return result.stopReason === 'auth'
        ? 'Stopped: the gateway refused the API key (401). Rows stay pending; fix GATEWAY_API_KEY and run again.'
        : result.ingest && !result.ingest.ok
          ? `Refused: ${refusalLine(result.ingest)}; nothing was sent.`
          : 'Refused: nothing was sent.';
    case EXIT_CODE.budget:
      return result.stopReason === 'balance'
        ? "Stopped: the gateway's balance ran out (402). Top up, then run again: deferred items are sent then."
        : "Stopped by the job's budget: some items are deferred. Run again with a higher --budget (or --no-budget) to send them.";
    case EXIT_CODE.uncertain:
      return 'Some items are uncertain (their submission may have reached the gateway): decide with `gbatch resolve`.';
    case EXIT_CODE.inFlight:
      if (result.stopReason === 'lock-lost')
        return 'Stopped: this run lost its journal lock; the runner that holds it now carries on.';
      if (result.outputFailure) return outputAdvice(result);
      return result.stopReason === 'no-wait'
        ? 'Submitted; tasks are in flight. Run again later to poll and download.'
        : result.stopReason === 'unreachable'
          ? 'Stopped: the gateway is unreachable (see the line above); nothing more was sent. Run again once it is back.'
          : result.stopReason === 'deadline'
            ? 'Stopped at the deadline; run again to continue.'
            : result.stopReason === 'interrupted'
              ? 'Interrupted: nothing new was sent after the signal; run again to continue.'
              : 'Stopped before all work was done; run again to continue.';
    default:
      return `Exit ${result.exitCode}.`;
  }
}

/**
 * Why the manifests were refused, in one printable line: the first problem (a changed row, or the first invalid row's
 * error).
 */
function refusalLine(ingest: IngestOutcome): string {
  const firstInvalid = ingest.invalid[0]?.errors[0];
  const first = ingest.conflicts[0]
    ? conflictProblem(ingest.conflicts[0])
    : firstInvalid
      ? `${ingest.problems[0] ?? `${ingest.invalidCount} invalid row(s)`}; the first: ${formatRowError(firstInvalid)}`
      : (ingest.problems[0] ?? 'the manifests were refused');
  const more = ingest.problems.length - 1;
  return printable(more > 0 ? `${first} (and ${more} more problem(s) above)` : first);
}

function outputAdvice(result: RunOutcome): string {
  return (
    `Stopped: ${result.outputFailure!.message}. Every answer received is kept in the journal; ` +
    'make room or fix the path, then run again: nothing already answered is sent again.'
  );
}
