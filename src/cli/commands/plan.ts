import { existsSync } from 'node:fs';
import { billBound, withOutputCap } from '../../core/bound.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../core/estimate.js';
import { roundUsd } from '../../core/money.js';
import { budgetInForce } from '../../core/job-budget.js';
import type { JournalStore } from '../../journal/index.js';
import { printableLocation } from '../../journal/database-url.js';
import { isDatabaseUrl, openStore } from '../../journal/open-store.js';
import type { ManifestRow } from '../../manifest/types.js';
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
  let journal: JournalStore | undefined;
  try {
    if (isDatabaseUrl(job.statePath) || existsSync(job.statePath)) journal = await openStore(job.statePath, { job: job.name, readonly: true });
  } catch (err) {
    process.stderr.write(`gbatch plan: ${printable(printableLocation(job.statePath))}: cannot read the journal: ${printable((err as Error).message)}\n`);
    return 2;
  }
  try {
    // A database that holds nothing of this job yet is as good as no journal.
    if (journal && journal.adapter === 'postgres' && !(await journal.getJob())) return await plan(job, undefined);
    return await plan(job, journal);
  } finally {
    await journal?.close();
  }
}

async function plan(job: ResolvedJob, journal: JournalStore | undefined): Promise<number> {
  const { flags } = job;
  const stored = (await journal?.getJob())?.budgetUsd;
  const budget = budgetInForce({ stored, given: flags.budget, lift: flags['no-budget'] }).budgetUsd;
  const standing = new PlanAgainstJournal(journal, job.manifests.length);
  const groups = new Map<string, Group>();
  const rows: Array<[string, string, string, string | null, string, string]> = [];
  const errors: string[] = [];
  let errorCount = 0;
  let capped = 0;
  const total = { usd: 0, max: 0 };
  const remaining = { rows: 0, usd: 0, max: 0 };
  // Rows are judged against the journal in batches, in manifest order, while the scan reads on.
  const judging = new BatchedJudge(standing, (usdEstimate, max) => {
    remaining.rows++;
    remaining.usd += usdEstimate;
    remaining.max += max;
  });
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
        judging.add(row, estimate.usd, max);
      },
      invalid: (entry) => {
        for (const e of entry.errors) {
          errorCount++;
          if (errors.length < SHOWN_ERRORS) errors.push(formatRowError(e));
        }
      },
    });
    await judging.done();
  } catch (err) {
    process.stderr.write(`gbatch plan: ${printable((err as Error).message)}\n`);
    return 2;
  }
  const conflicts = standing.problems();
  const spend = (await journal?.spend()) ?? { reservedUsd: 0, actualUsd: 0 };
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
  const cancel = await journal?.jobCancel();
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({
      job: job.name, manifests: job.manifests, pricing: job.pricingSource,
      rows: summary.rows, valid: summary.valid, invalid: summary.invalid, errors: [...errors, ...conflicts], error_count: errorCount + conflicts.length,
      conflicts: conflicts.length,
      estimated_usd: roundUsd(total.usd), max_usd: roundUsd(total.max), budget_usd: budget ?? null, budget_may_overrun: mayOverrun,
      fits_budget: fits, reason, output_capped_rows: capped,
      journal: journal ? {
        state: printableLocation(job.statePath), spent_usd: spend.actualUsd, reserved_usd: spend.reservedUsd,
        remaining_rows: remaining.rows, remaining_estimated_usd: roundUsd(remaining.usd), remaining_max_usd: roundUsd(remaining.max),
        cancelled: cancel ? { at: new Date(cancel.at).toISOString(), reason: cancel.reason } : null,
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
    out.push(`Journal ${printable(printableLocation(job.statePath))}: spent ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)}; `
      + `${remaining.rows} row(s) still to send: estimate ${usd(roundUsd(remaining.usd))}, can bill up to ${usd(roundUsd(remaining.max))}`);
  }
  if (cancel) {
    out.push(`The job was cancelled ${new Date(cancel.at).toISOString()}${cancel.reason ? ` (${printable(cancel.reason)})` : ''}: \`run\` sends nothing `
      + 'until `gbatch retry --cancelled` lifts it.');
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

const JUDGE_BATCH = 500;

/** Collects rows from the (synchronous) scan and judges them a batch at a time, in order. */
class BatchedJudge {
  private batch: Array<{ row: ManifestRow; usd: number; max: number }> = [];
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly standing: PlanAgainstJournal, private readonly onRemaining: (usd: number, max: number) => void) {}

  add(row: ManifestRow, usdEstimate: number, max: number): void {
    this.batch.push({ row, usd: usdEstimate, max });
    if (this.batch.length >= JUDGE_BATCH) this.flush();
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    this.chain = this.chain.then(async () => {
      if (this.failure !== undefined) return;
      const standings = await this.standing.judgeRows(batch.map((b) => b.row));
      standings.forEach((standing, i) => {
        if (standing === 'remaining') this.onRemaining(batch[i]!.usd, batch[i]!.max);
      });
    }).catch((err: unknown) => {
      this.failure ??= err; // held for done(): the scan goes on meanwhile
    });
  }

  async done(): Promise<void> {
    this.flush();
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
  }
}
