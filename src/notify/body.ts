// The JSON a webhook receives: a `text` line (what Slack-style incoming webhooks show) beside the
// structured fields a program reads. Pure. It renders the job's standing (src/core/standing.ts) as status
// does: what happened, what needs a person and the commands for it, all built by core/job-address.ts. Built
// only from the run's summary, which never holds the API key; the serialised body still goes through the
// redactor, so a key quoted anywhere upstream (an item's error, a job name) cannot leave in a notification.
import type { ItemState } from '../core/states.js';
import type { Redactor } from '../gateway/redact.js';
import { EXIT_CODE } from '../core/exit-codes.js';
import { jobCommand, type JobAddress } from '../core/job-address.js';
import { standingJson, type Standing } from '../core/standing.js';
import { dollars, duration, finish, percent, round1, type NotificationBody } from './body-format.js';

export interface RunSummary {
  job: string;
  exitCode: number;
  /** What the exit code means, as `gbatch run` ends with it. */
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
  /** What happened and what needs a person, with its commands (the policy's own retries left out). */
  standing: Standing;
  startedAt: number;
  endedAt: number;
  /** Where the journal is (a database URL without its password). */
  journal: string;
  outDir: string;
  /** results.jsonl (chat and responses answers), when the run wrote one. */
  resultsPath: string | null;
  /** How the job is addressed, as the operator started it: every command is built from it. */
  address: JobAddress;
  host: string;
}

/** The command that prints the job's full report. */
export function reportCommand(summary: Pick<RunSummary, 'address'>): string {
  return jobCommand(summary.address, 'report');
}

/**
 * What needs the operator, one line each, with the commands (naming the job) that deal with it: the standing's
 * needs, and the command that carries the job on. Failed and rejected rows the next run sends again on its own
 * are not among them (see autoRetriedLine).
 */
export function attentionFor(
  summary: Pick<RunSummary, 'address' | 'exitCode' | 'counts' | 'meaning' | 'standing'>,
): string[] {
  const { standing } = summary;
  const lines: string[] = [];
  if (summary.exitCode === EXIT_CODE.usage || summary.exitCode === EXIT_CODE.internal) lines.push(summary.meaning);
  for (const need of standing.needs)
    lines.push(
      need.commands.length > 0 ? `${need.line} (${need.commands.map((c) => `\`${c}\``).join(' or ')})` : need.line,
    );
  if (standing.resume !== null) lines.push(`carry on: \`${standing.resume}\``);
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

/** Exits of a run that did nothing (refused, skipped, busy, crashed): its cause is the news, then the standing. */
const DID_NOTHING: ReadonlySet<number> = new Set([
  EXIT_CODE.usage,
  EXIT_CODE.skipped,
  EXIT_CODE.busy,
  EXIT_CODE.internal,
]);

function headline(summary: Pick<RunSummary, 'job' | 'exitCode' | 'meaning' | 'standing'>): string[] {
  const exit = `gbatch ${summary.job}: exit ${summary.exitCode}`;
  return DID_NOTHING.has(summary.exitCode)
    ? [`${exit}: ${summary.meaning}`, `Standing: ${summary.standing.sentence}`]
    : [`${exit}: ${summary.standing.sentence}`];
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
    ...headline(summary),
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
      standing: standingJson(summary.standing),
      auto_retried: { failed: summary.autoRetried.failed, rejected: summary.autoRetried.rejected },
      host: summary.host,
    },
    redact,
  );
}
