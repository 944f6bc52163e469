import { existsSync } from 'node:fs';
import { billBound, withOutputCap } from '../../core/bound.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../core/estimate.js';
import { roundUsd } from '../../core/money.js';
import { budgetInForce } from '../../core/job-budget.js';
import { Journal } from '../../journal/index.js';
import { printable } from '../../core/printable.js';
import { formatRowError } from '../../manifest/types.js';
import { PlanAgainstJournal } from '../../pipeline/plan-journal.js';
import { scanManifests, estimateResolution } from '../../ingest/scan-manifests.js';
import { renderTable, usd } from '../../report/table.js';
import { jobFromArgs, type ResolvedJob } from '../job.js';

const SHOWN_ROWS = 50;
const SHOWN_ERRORS = 200;

interface Group { model: string; resolution: string | null; rows: number; usd: number; max: number }

export async function run(argv: string[]): Promise<number> {
  const job = jobFromArgs('plan', argv, new Date());
  if (!job) return 0;
  // The job's journal, when it exists, as `run` would find it; read only, never created.
  let journal: Journal | undefined;
  try {
    if (existsSync(job.statePath)) journal = Journal.open(job.statePath, { readonly: true });
  } catch (err) {
    process.stderr.write(`gbatch plan: ${job.statePath}: cannot read the journal: ${(err as Error).message}\n`);
    return 2;
  }
  try {
    return await plan(job, journal);
  } finally {
    journal?.close();
  }
}

async function plan(job: ResolvedJob, journal: Journal | undefined): Promise<number> {
  const { flags } = job;
  const stored = journal?.getJob()?.budgetUsd;
  const budget = budgetInForce({ stored, given: flags.budget, lift: flags['no-budget'] }).budgetUsd;
  const standing = new PlanAgainstJournal(journal, job.manifests.length);
  const groups = new Map<string, Group>();
  const rows: Array<[string, string, string, string | null, string, string]> = [];
  const errors: string[] = [];
  let errorCount = 0;
  let capped = 0;
  const total = { usd: 0, max: 0 };
  const remaining = { rows: 0, usd: 0, max: 0 };
  let summary;
  try {
    summary = await scanManifests(job.manifests, job.pricing, {
      valid: ({ row, estimate }) => {
        // The bound of the request as run sends it: under a budget, an uncapped text row gets the default cap.
        const sent = budget === undefined ? { request: row.request } : withOutputCap(row.kind, row.request);
        if (sent.added !== undefined) capped++;
        // The row's canonical JSON has the request's bytes; a cap added to it is serialised anew.
        const max = Math.max(estimate.usd, billBound(row.kind, sent.request, job.pricing, sent.request === row.request ? Buffer.byteLength(row.requestJson, 'utf8') : undefined));
        total.usd += estimate.usd;
        total.max += max;
        const resolution = estimateResolution(estimate);
        const key = `${row.model}\u0000${resolution ?? ''}`;
        const group = groups.get(key) ?? { model: row.model, resolution, rows: 0, usd: 0, max: 0 };
        group.rows++;
        group.usd += estimate.usd;
        group.max += max;
        groups.set(key, group);
        if (rows.length < SHOWN_ROWS) rows.push([row.id, row.kind, row.model, resolution, usd(estimate.usd), usd(max)]);
        if (standing.judge(row) === 'remaining') {
          remaining.rows++;
          remaining.usd += estimate.usd;
          remaining.max += max;
        }
      },
      invalid: (entry) => {
        for (const e of entry.errors) {
          errorCount++;
          if (errors.length < SHOWN_ERRORS) errors.push(formatRowError(e));
        }
      },
    });
  } catch (err) {
    process.stderr.write(`gbatch plan: ${printable((err as Error).message)}\n`);
    return 2;
  }
  const conflicts = standing.problems();
  const spend = journal?.spend() ?? { reservedUsd: 0, actualUsd: 0 };
  const mayOverrun = flags['budget-may-overrun'];
  // Judged on what the gateway can bill (the estimate only under --budget-may-overrun), plus what the journal holds.
  const needed = roundUsd(spend.actualUsd + spend.reservedUsd + (mayOverrun ? remaining.usd : remaining.max));
  const fits = budget === undefined ? null : needed <= budget;
  const reason = fits === false
    ? `the job needs up to ${usd(needed)}${journal ? ` (spent ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)}, remaining rows ${usd(mayOverrun ? remaining.usd : remaining.max)})` : ''}`
      + ` against a budget of ${usd(budget!, 2)}: a run sends what fits and defers the rest (exit 3)`
    : null;
  const groupList = [...groups.values()].sort((a, b) => a.model.localeCompare(b.model) || String(a.resolution).localeCompare(String(b.resolution)));
  const exitCode = summary.invalid > 0 || conflicts.length > 0 ? 2 : fits === false ? 3 : 0;
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({
      job: job.name, manifests: job.manifests, pricing: job.pricingSource,
      rows: summary.rows, valid: summary.valid, invalid: summary.invalid, errors: [...errors, ...conflicts], error_count: errorCount + conflicts.length,
      conflicts: conflicts.length,
      estimated_usd: roundUsd(total.usd), max_usd: roundUsd(total.max), budget_usd: budget ?? null, budget_may_overrun: mayOverrun,
      fits_budget: fits, reason, output_capped_rows: capped,
      journal: journal ? {
        state: job.statePath, spent_usd: spend.actualUsd, reserved_usd: spend.reservedUsd,
        remaining_rows: remaining.rows, remaining_estimated_usd: roundUsd(remaining.usd), remaining_max_usd: roundUsd(remaining.max),
      } : null,
      by_model: groupList.map((g) => ({ model: g.model, resolution: g.resolution, rows: g.rows, estimated_usd: roundUsd(g.usd), max_usd: roundUsd(g.max) })),
    })}\n`);
    return exitCode;
  }
  for (const line of [...errors, ...conflicts]) process.stderr.write(`${printable(line)}\n`);
  if (errorCount > errors.length) process.stderr.write(`... ${errorCount - errors.length} more error(s)\n`);
  const out: string[] = [];
  out.push(`Plan for ${printable(job.name)}: ${summary.rows} row(s) in ${printable(job.manifests.join(', '))}; ${summary.valid} valid, ${summary.invalid} invalid`);
  out.push(`Pricing: ${printable(job.pricingSource)}`);
  if (rows.length > 0) {
    out.push('', renderTable(['id', 'kind', 'model', 'resolution', 'estimate', 'can bill up to'], rows, new Set([4, 5])));
    if (summary.valid > rows.length) out.push(`(${summary.valid - rows.length} more rows)`);
  }
  if (groupList.length > 0) {
    out.push('', renderTable(['model', 'resolution', 'rows', 'estimate', 'can bill up to'],
      groupList.map((g) => [g.model, g.resolution, g.rows, usd(roundUsd(g.usd)), usd(roundUsd(g.max))]), new Set([2, 3, 4])));
  }
  out.push('', `Estimated total: ${usd(roundUsd(total.usd))}; the gateway can bill up to ${usd(roundUsd(total.max))} `
    + '(video at the dearest final resolution the model lists; chat with every request byte a token and the whole output cap)');
  if (journal) {
    out.push(`Journal ${printable(job.statePath)}: spent ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)}; `
      + `${remaining.rows} row(s) still to send: estimate ${usd(roundUsd(remaining.usd))}, can bill up to ${usd(roundUsd(remaining.max))}`);
  }
  if (budget !== undefined) {
    const basis = mayOverrun ? 'judged on the expected estimate: --budget-may-overrun' : 'judged on what the gateway can bill';
    out.push(fits ? `Fits the budget of ${usd(budget, 2)} (${basis}).` : `Does not fit (${basis}): ${reason}.`);
  }
  if (capped > 0) out.push(`${capped} chat/responses row(s) state no output cap: under the budget they are sent with a cap of ${DEFAULT_MAX_OUTPUT_TOKENS} tokens (max_tokens / max_output_tokens).`);
  if (summary.invalid > 0) out.push(`${summary.invalid} invalid row(s): \`run\` refuses this manifest unless --skip-invalid.`);
  if (conflicts.length > 0) out.push(`${conflicts.length} row(s) changed under an id the job already holds: \`run\` refuses them.`);
  process.stdout.write(`${out.join('\n')}\n`);
  return exitCode;
}
