// `gbatch plan`: prints what planJob (src/api/plan-job.ts) decides, as a table or one JSON object.
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../core/estimate.js';
import { printable, printableJson } from '../../core/printable.js';
import { renderTable, usd } from '../../report/table.js';
import { verdictLines } from '../../core/plan-verdict.js';
import { planResolvedJob, type PlanResult } from '../../api/plan-job.js';
import { jobFromArgs } from '../job-args.js';
import { jobCommand } from '../../core/job-address.js';
import { runAddressOf } from '../../job/run-address.js';

export async function run(argv: string[]): Promise<number> {
  const job = jobFromArgs('plan', argv, new Date());
  if (!job) return 0;
  const plan = await planResolvedJob(job);
  if (job.flags.json) process.stdout.write(`${JSON.stringify(planJson(plan))}\n`);
  else printPlan(plan, jobCommand(runAddressOf(job), 'retry', '--cancelled'));
  return plan.exitCode;
}

function planJson(plan: PlanResult): Record<string, unknown> {
  return {
    job: plan.job,
    manifests: plan.manifests,
    pricing: plan.pricing,
    rows: plan.rows,
    valid: plan.valid,
    invalid: plan.invalid,
    errors: plan.errors,
    error_count: plan.errorCount,
    conflicts: plan.conflicts.length,
    skipped_changed: plan.skipChanged ? plan.conflicts : [],
    estimated_usd: plan.estimatedUsd,
    max_usd: plan.maxUsd,
    budget_usd: plan.budgetUsd,
    budget_may_overrun: plan.budgetMayOverrun,
    fits_budget: plan.fitsBudget,
    forecast: {
      p50_usd: plan.forecast.p50Usd,
      p90_usd: plan.forecast.p90Usd,
      basis_rows: plan.forecast.basisRows,
      rows_without_history: plan.forecast.rowsWithoutHistory,
    },
    verdict: plan.verdict?.verdict ?? null,
    verdict_detail: plan.verdict
      ? {
          chance: plan.verdict.chance,
          rows_short: plan.verdict.rowsShort,
          finishing_budget_usd: plan.verdict.finishingBudgetUsd,
          never_sent: plan.verdict.neverSent.map((r) => ({ id: r.id, bound_usd: r.boundUsd, budget_usd: r.budgetUsd })),
          never_sent_count: plan.verdict.neverSentCount,
        }
      : null,
    unpriced: plan.unpriced,
    reason: plan.reason,
    output_capped_rows: plan.outputCappedRows,
    journal: plan.journal
      ? {
          state: plan.journal.location,
          spent_usd: plan.journal.spentUsd,
          reserved_usd: plan.journal.reservedUsd,
          remaining_rows: plan.journal.remainingRows,
          remaining_estimated_usd: plan.journal.remainingEstimatedUsd,
          remaining_max_usd: plan.journal.remainingMaxUsd,
          cancelled: plan.journal.cancelled
            ? { at: new Date(plan.journal.cancelled.at).toISOString(), reason: plan.journal.cancelled.reason }
            : null,
        }
      : null,
    by_model: plan.byModel.map((g) => ({
      model: g.model,
      resolution: g.resolution,
      rows: g.rows,
      estimated_usd: g.estimatedUsd,
      max_usd: g.maxUsd,
    })),
    ...(plan.requests.length > 0
      ? {
          requests: plan.requests.map((r) => ({
            id: r.id,
            method: r.method,
            url: r.url,
            body: JSON.parse(r.body) as unknown,
          })),
        }
      : {}),
  };
}

function forecastLine(forecast: PlanResult['forecast']): string {
  const range = `Forecast (Monte Carlo over the cost history): P50 ${usd(forecast.p50Usd)}, P90 ${usd(forecast.p90Usd)}`;
  if (forecast.basisRows === 0)
    return `${range}: no settled rows like these in the history; the table's estimate is used.`;
  const without =
    forecast.rowsWithoutHistory > 0
      ? `; ${forecast.rowsWithoutHistory} row(s) with no row like them use the table's estimate`
      : '';
  return `${range}, from ${forecast.basisRows} settled row(s) like these${without}.`;
}

function printPlan(plan: PlanResult, retryCancelled: string): void {
  printErrors(plan);
  const out = [
    `Plan for ${printable(plan.job)}: ${plan.rows} row(s) in ${printable(plan.manifests.join(', '))}; ${plan.valid} valid, ${plan.invalid} invalid`,
    `Pricing: ${printable(plan.pricing)}`,
    ...rowTables(plan),
    ...moneyLines(plan, retryCancelled),
    ...budgetLines(plan),
    ...noticeLines(plan),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The row errors on stderr: the first ones, then how many more. */
function printErrors(plan: PlanResult): void {
  for (const line of plan.errors) process.stderr.write(`${printable(line)}\n`);
  const refusedChanges = plan.skipChanged ? 0 : plan.conflicts.length;
  const rowErrors = plan.errorCount - refusedChanges;
  const shownRowErrors = plan.errors.length - refusedChanges;
  if (rowErrors > shownRowErrors) process.stderr.write(`... ${rowErrors - shownRowErrors} more error(s)\n`);
}

/** The first rows, then the rows by model and resolution. */
function rowTables(plan: PlanResult): string[] {
  const out: string[] = [];
  if (plan.shownRows.length > 0) {
    out.push(
      '',
      renderTable(
        ['id', 'kind', 'model', 'resolution', 'estimate', 'can bill up to'],
        plan.shownRows.map((r) => [r.id, r.kind, r.model, r.resolution, usd(r.estimatedUsd), usd(r.maxUsd)]),
        new Set([4, 5]),
      ),
    );
    if (plan.valid > plan.shownRows.length) out.push(`(${plan.valid - plan.shownRows.length} more rows)`);
  }
  if (plan.byModel.length > 0) {
    out.push(
      '',
      renderTable(
        ['model', 'resolution', 'rows', 'estimate', 'can bill up to'],
        plan.byModel.map((g) => [g.model, g.resolution, g.rows, usd(g.estimatedUsd), usd(g.maxUsd)]),
        new Set([2, 3, 4]),
      ),
    );
  }
  return out;
}

/** The estimate and the bound, the forecast, what the journal holds and whether the job is cancelled. */
function moneyLines(plan: PlanResult, retryCancelled: string): string[] {
  const out = [
    '',
    `Estimated total: ${usd(plan.estimatedUsd)}; the gateway can bill up to ${usd(plan.maxUsd)} ` +
      '(video at the dearest final resolution the model lists; chat with every request byte a token and the whole output cap)',
    forecastLine(plan.forecast),
  ];
  const journal = plan.journal;
  if (journal) {
    out.push(
      `Journal ${printable(journal.location)}: spent ${usd(journal.spentUsd)}, reserved ${usd(journal.reservedUsd)}; ` +
        `${journal.remainingRows} row(s) still to send: estimate ${usd(journal.remainingEstimatedUsd)}, can bill up to ${usd(journal.remainingMaxUsd)}`,
    );
  }
  const cancel = journal?.cancelled;
  if (cancel) {
    out.push(
      `The job was cancelled ${new Date(cancel.at).toISOString()}${cancel.reason ? ` (${printable(cancel.reason)})` : ''}: \`run\` sends nothing ` +
        `until \`${retryCancelled}\` lifts it.`,
    );
  }
  return out;
}

/** The budget: why it cannot be judged, or whether it fits at once, then the verdict. */
function budgetLines(plan: PlanResult): string[] {
  if (plan.unpriced !== null)
    return [
      'A row the journal holds has no price in this pricing table (above): `run` refuses the job, and its budget cannot be judged.',
    ];
  if (plan.budgetUsd === null) return [];
  const out: string[] = [];
  const basis = plan.budgetMayOverrun
    ? 'judged on the expected estimate: --budget-may-overrun'
    : 'judged on what the gateway can bill';
  if (!plan.fitsBudget) out.push(`Not all at once (${basis}): ${plan.reason}.`);
  if (plan.verdict) out.push(...verdictLines(plan.verdict, plan.budgetUsd).map(printable));
  return out;
}

/** What `run` will do of capped, invalid and changed rows, and the exact requests asked for. */
function noticeLines(plan: PlanResult): string[] {
  const out: string[] = [];
  if (plan.outputCappedRows > 0)
    out.push(
      `${plan.outputCappedRows} chat/responses row(s) state no output cap: under the budget they are sent with a cap of ${DEFAULT_MAX_OUTPUT_TOKENS} tokens (max_tokens / max_output_tokens).`,
    );
  if (plan.invalid > 0) {
    out.push(
      plan.skipInvalid
        ? `${plan.invalid} invalid row(s): \`run\` records them as invalid and sends the rest (--skip-invalid).`
        : `${plan.invalid} invalid row(s): \`run\` refuses this manifest unless --skip-invalid.`,
    );
  }
  if (plan.requests.length > 0) {
    out.push('', `The first ${plan.requests.length} request(s) exactly as \`run\` would send them:`);
    for (const r of plan.requests) out.push(`${r.method} ${r.url} (row ${printable(r.id)})`, printableJson(r.body));
  }
  if (plan.conflicts.length > 0 && plan.skipChanged) {
    out.push(
      '',
      ...plan.conflicts.map(printable),
      `${plan.conflicts.length} row(s) changed under an id the job already holds: \`run\` skips them and sends the rest (--skip-changed); the journal keeps their rows, unsent.`,
    );
  } else if (plan.conflicts.length > 0) {
    out.push(
      `${plan.conflicts.length} row(s) changed under an id the job already holds: \`run\` refuses them (or skips them with --skip-changed).`,
    );
  }
  return out;
}
