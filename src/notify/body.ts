// The JSON a webhook receives: a `text` line (what Slack-style incoming webhooks show) beside the
// structured fields a program reads. Pure. Built only from the run's summary, which never holds the
// API key; the serialised body still goes through the redactor, so a key quoted anywhere upstream
// (an item's error, a job name) cannot leave in a notification.
import type { ItemState } from '../core/states.js';
import type { Redactor } from '../gateway/redact.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import { dollars, duration, finish, percent, round1, type NotificationBody } from './body-format.js';

export interface RunSummary {
  job: string;
  exitCode: number;
  /** What the exit code means and what to do next, as `gbatch run` ends with it. */
  meaning: string;
  stopReason: string | null;
  counts: Record<ItemState, number>;
  spendUsd: number;
  reservedUsd: number;
  budgetUsd: number | null;
  /** The journal's estimate for every item of the job; null when the journal could not be read. */
  estimateUsd: number | null;
  /** Of the failed and rejected rows, those the next run sends again on its own (--retry-failed): no one's to retry. */
  autoRetried: { failed: number; rejected: number };
  startedAt: number;
  endedAt: number;
  /** Where the journal is (a database URL without its password). */
  journal: string;
  outDir: string;
  /** results.jsonl (chat and responses answers), when the run wrote one. */
  resultsPath: string | null;
  /**
   * How a pasted command names the job: as the operator started it (the job file or manifest), with
   * `--state` or `--journal` when that alone would not find its journal.
   */
  jobArg: string;
  /** The job file or manifest the run was started with, quoted for a shell (what `gbatch plan` takes). */
  sourceArg: string;
  host: string;
}

/** The command that prints the job's full report. */
export function reportCommand(summary: Pick<RunSummary, 'jobArg'>): string {
  return `gbatch report ${summary.jobArg}`;
}

/**
 * What needs the operator, one line each, with the command (naming the job) that deals with it. Failed and
 * rejected rows the next run sends again on its own are not among them (see autoRetriedLine).
 */
export function attentionFor(
  summary: Pick<RunSummary, 'jobArg' | 'sourceArg' | 'exitCode' | 'counts' | 'meaning' | 'autoRetried'>,
): string[] {
  const { counts, jobArg } = summary;
  const lines: string[] = [];
  if (summary.exitCode === EXIT_CODE.usage || summary.exitCode === EXIT_CODE.internal) lines.push(summary.meaning);
  if (counts.uncertain > 0) {
    lines.push(
      `${counts.uncertain} uncertain (the gateway may hold them): \`gbatch status ${jobArg}\` lists them with the \`gbatch resolve\` commands that decide them`,
    );
  }
  const failed = counts.failed - summary.autoRetried.failed;
  const rejected = counts.rejected - summary.autoRetried.rejected;
  if (failed + rejected > 0) {
    const flags = [failed > 0 ? '--failed' : '', rejected > 0 ? '--rejected' : ''].filter(Boolean).join(' ');
    const auto =
      summary.autoRetried.failed + summary.autoRetried.rejected > 0 ? ' that no run sends again on its own' : '';
    lines.push(`${failed} failed, ${rejected} rejected${auto}: \`gbatch retry ${jobArg} ${flags}\` sends them again`);
  }
  if (counts.deferred > 0)
    lines.push(
      `${counts.deferred} deferred by the budget or the gateway's balance: raise --budget (or top up), then run again`,
    );
  if (counts.invalid > 0)
    lines.push(`${counts.invalid} invalid row(s): fix the manifest (\`gbatch plan ${summary.sourceArg}\` lists them)`);
  const open = counts.pending + counts.submitting + counts.submitted + counts.running + counts.succeeded;
  if (open > 0 && summary.exitCode !== 2) lines.push(`${open} item(s) not finished: the next run continues them`);
  return lines;
}

/** The failed and rejected rows the next run sends again by itself, if any: nothing for anyone to do. */
export function autoRetriedLine(summary: Pick<RunSummary, 'autoRetried'>): string | undefined {
  const { failed, rejected } = summary.autoRetried;
  if (failed + rejected === 0) return undefined;
  const rows = [failed > 0 ? `${failed} failed` : '', rejected > 0 ? `${rejected} rejected (408/425)` : '']
    .filter(Boolean)
    .join(' and ');
  return `${rows}: the next run sends them again on its own (--retry-failed); nothing to do`;
}

export function runEndedBody(summary: RunSummary, redact: Redactor): NotificationBody {
  const attention = attentionFor(summary);
  const autoRetried = autoRetriedLine(summary);
  const durationS = Math.max(0, Math.round((summary.endedAt - summary.startedAt) / 1000));
  const nonzero = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`);
  const money =
    summary.budgetUsd === null
      ? `spent ${dollars(summary.spendUsd)} (no budget)`
      : `spent ${dollars(summary.spendUsd)} of a ${dollars(summary.budgetUsd)} budget (${percent(summary.spendUsd, summary.budgetUsd)})`;
  const text = [
    `gbatch ${summary.job}: exit ${summary.exitCode}: ${summary.meaning}`,
    `${nonzero.join(', ') || 'no items'}; ${money}${summary.estimateUsd === null ? '' : `, estimate ${dollars(summary.estimateUsd)}`}; took ${duration(durationS)}`,
    ...attention.map((line) => `- ${line}`),
    ...(autoRetried ? [autoRetried] : []),
    `Report: ${reportCommand(summary)}${summary.resultsPath ? `; results: ${summary.resultsPath}` : ''}`,
  ].join('\n');
  return finish(
    {
      text,
      event: 'run-ended',
      job: summary.job,
      exit_code: summary.exitCode,
      meaning: summary.meaning,
      stop_reason: summary.stopReason,
      counts: summary.counts,
      spend_usd: summary.spendUsd,
      reserved_usd: summary.reservedUsd,
      budget_usd: summary.budgetUsd,
      budget_used_pct:
        summary.budgetUsd === null || summary.budgetUsd === 0
          ? null
          : round1((summary.spendUsd / summary.budgetUsd) * 100),
      estimate_usd: summary.estimateUsd,
      started_at: new Date(summary.startedAt).toISOString(),
      ended_at: new Date(summary.endedAt).toISOString(),
      duration_s: durationS,
      journal: summary.journal,
      out_dir: summary.outDir,
      results: summary.resultsPath,
      report: reportCommand(summary),
      attention,
      auto_retried: { failed: summary.autoRetried.failed, rejected: summary.autoRetried.rejected },
      host: summary.host,
    },
    redact,
  );
}
