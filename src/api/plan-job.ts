// The library's `planJob`: what `gbatch plan` decides, as data. Validates every row, estimates the
// job's cost (and what the gateway can bill at most), and judges it against the job's journal, when
// one exists, and the budget in force. Sends nothing; never creates a journal.
import { existsSync } from 'node:fs';
import { billBound, withOutputCap } from '../core/bound.js';
import type { Estimate } from '../core/estimate.js';
import type { PricingTable } from '../core/pricing.js';
import { roundUsd } from '../core/money.js';
import { budgetInForce } from '../core/job-budget.js';
import type { JournalQueries } from '../journal/index.js';
import { printableLocation } from '../journal/database-url.js';
import { isDatabaseUrl, openQueries } from '../journal/open-store.js';
import type { ManifestRow } from '../manifest/types.js';
import { BATCH_URLS } from '../manifest/jsonl-line.js';
import type { ItemKind } from '../core/states.js';
import { formatRowError } from '../manifest/types.js';
import { unpricedHeldRows, PlanAgainstJournal } from '../pipeline/index.js';
import { scanManifests, estimateResolution, type ScanSummary } from '../ingest/scan-manifests.js';
import { usd } from '../report/table.js';
import { resolveJob, type ResolvedJob } from '../job/job.js';
import { UsageError } from '../job/options.js';
import { optionsToFlags, type JobOptions } from './job-options.js';
import { metaColumnList } from '../job/run-options.js';
import { gatewayAccess } from '../job/job.js';
import { accountId } from '../gateway/account-id.js';
import type { ForecastRow, Forecast } from '../core/forecast.js';
import type { PlanVerdict } from '../core/plan-verdict.js';
import { rowLikeness } from '../core/row-likeness.js';
import type { JobCancel, SettledCostRecord, Spend } from '../journal/index.js';
import { planForecast } from './plan-forecast.js';
import { planDriftRatio } from '../core/plan-drift.js';

const SHOWN_ROWS = 50;
const SHOWN_ERRORS = 200;

export interface PlanJobOptions {
  /** A job file (`jobs/<name>.json`) or a manifest (`.csv`, `.jsonl`), as `gbatch plan` takes. */
  job: string;
  /**
   * `gbatch plan`'s options by their flag names: state, journal, pricing, budget, no-budget, budget-may-overrun,
   * meta-columns.
   */
  options?: Pick<
    JobOptions,
    'state' | 'journal' | 'pricing' | 'budget' | 'no-budget' | 'budget-may-overrun' | 'meta-columns' | 'skip-changed'
  >;
  /** Where GBATCH_JOURNAL_URL is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Give the exact bodies of the first N valid rows (`plan --show-requests N`). */
  showRequests?: number;
}

/** A request as `run` would send it: the gateway path and the exact JSON body. */
export interface PlannedRequest {
  id: string;
  method: 'POST';
  url: string;
  body: string;
}

export interface PlanRow {
  id: string;
  kind: string;
  model: string;
  resolution: string | null;
  estimatedUsd: number;
  maxUsd: number;
}
export interface PlanGroup {
  model: string;
  resolution: string | null;
  rows: number;
  estimatedUsd: number;
  maxUsd: number;
}

export interface PlanResult {
  job: string;
  manifests: string[];
  pricing: string;
  rows: number;
  valid: number;
  invalid: number;
  /** The first 200 row errors (file:line: field: reason), then the rows that changed under an id the journal holds. */
  errors: string[];
  errorCount: number;
  conflicts: string[];
  estimatedUsd: number;
  /** What the gateway can bill at most for the rows (video at its dearest final resolution, chat at its output cap). */
  maxUsd: number;
  budgetUsd: number | null;
  budgetMayOverrun: boolean;
  /** Null without a budget, or when a row the journal holds has no price (`unpriced`). */
  fitsBudget: boolean | null;
  /**
   * The refusal `run` would make: a row the journal holds, which a run may send, that the pricing table cannot price.
   */
  unpriced: string | null;
  /** Why it does not fit, when it does not. */
  reason: string | null;
  /** The job's total as the cost history forecasts it (the rows still to send, plus what the journal holds). */
  forecast: Forecast;
  /** Under a budget (and every row priced): whether the run will send every row; else null. */
  verdict: PlanVerdict | null;
  /** Chat/responses rows without an output cap: under a budget they are sent with the default cap. */
  outputCappedRows: number;
  journal: null | {
    location: string;
    spentUsd: number;
    reservedUsd: number;
    remainingRows: number;
    remainingEstimatedUsd: number;
    remainingMaxUsd: number;
    /** The job's cancellation (`gbatch cancel`), while it stands: `run` sends nothing. */
    cancelled: { at: number; reason: string | null } | null;
  };
  byModel: PlanGroup[];
  /** The first 50 valid rows. */
  shownRows: PlanRow[];
  /** --skip-invalid in force: `run` records invalid rows and sends the rest. */
  skipInvalid: boolean;
  /**
   * --skip-changed in force: `run` skips the rows in `conflicts` (their journal rows are not sent) and sends the rest.
   */
  skipChanged: boolean;
  /** With showRequests (`--show-requests N`): the first N valid rows' requests; else empty. */
  requests: PlannedRequest[];
  /**
   * `gbatch plan`'s exit code: 0 the job will most likely finish (or has no budget), 2 invalid rows (without
   * --skip-invalid) or conflicts (without --skip-changed), 3 the job will most likely stop short of its budget.
   */
  exitCode: 0 | 2 | 3;
}

/** Plans a job; a usage error (a missing manifest, a bad option) throws UsageError. */
export async function planJob(options: PlanJobOptions): Promise<PlanResult> {
  const flags = optionsToFlags(options.options ?? {}, 'planJob options');
  const job = resolveJob(
    options.job,
    { ...flags, ...(options.showRequests !== undefined ? { 'show-requests': options.showRequests } : {}) },
    new Date(),
    options.env ?? process.env,
  );
  return planResolvedJob(job);
}

export async function planResolvedJob(job: ResolvedJob): Promise<PlanResult> {
  // The job's journal, when it exists, as `run` would find it; read only, never created.
  let journal: JournalQueries | undefined;
  try {
    if (isDatabaseUrl(job.statePath) || existsSync(job.statePath))
      journal = await openQueries(job.statePath, { job: job.name });
  } catch (err) {
    throw new UsageError(`${printableLocation(job.statePath)}: cannot read the journal: ${(err as Error).message}`);
  }
  try {
    // The cost history is the database's on PostgreSQL: a job it holds nothing of yet still learns from it.
    const settled = (await journal?.settledCosts()) ?? [];
    // A database that holds nothing of this job yet is as good as no journal.
    if (journal && journal.adapter === 'postgres' && !(await journal.getJob()))
      return await plan(job, undefined, settled);
    return await plan(job, journal, settled);
  } finally {
    await journal?.close();
  }
}

/** What the scan of the manifests counts: the rows and errors shown, the totals, and the rows still to send. */
interface Tally {
  groups: Map<string, PlanGroup>;
  shownRows: PlanRow[];
  requests: PlannedRequest[];
  errors: string[];
  errorCount: number;
  /** Rows sent with the default output cap a budget adds. */
  capped: number;
  total: { usd: number; max: number };
  remaining: { rows: number; usd: number; max: number };
  /** The rows a run would still send, in its order, as the forecast and the verdict read them. */
  toSend: ForecastRow[];
}

async function plan(
  job: ResolvedJob,
  journal: JournalQueries | undefined,
  settled: readonly SettledCostRecord[],
): Promise<PlanResult> {
  const { flags } = job;
  const budget = await budgetOfNextRun(job, journal);
  const mayOverrun = flags['budget-may-overrun'];
  const standing = new PlanAgainstJournal(journal, job.manifests.length);
  await standing.loadAdopted();
  const tally: Tally = {
    groups: new Map(),
    shownRows: [],
    requests: [],
    errors: [],
    errorCount: 0,
    capped: 0,
    total: { usd: 0, max: 0 },
    remaining: { rows: 0, usd: 0, max: 0 },
    toSend: [],
  };
  const summary = await scanJob(job, budget, standing, tally);
  const skipChanged = flags['skip-changed'] === true;
  const conflicts = standing.problems(skipChanged);
  // The rows earlier runs left in the journal, judged by run's own rule (held-row-prices.ts).
  const unpriced = journal
    ? ((await unpricedHeldRows(journal, job.pricing, job.pricingSource, flags['resubmit-uncertain-text'] === true)) ??
      null)
    : null;
  const spend = (await journal?.spend()) ?? { reservedUsd: 0, actualUsd: 0 };
  // A budget is judged only when every row the journal holds has a price.
  const judgedBudget = unpriced !== null ? undefined : budget;
  const atOnce = judgeAtOnce(judgedBudget, spend, tally.remaining, mayOverrun, journal !== undefined);
  const money = await forecastOf(job, journal, tally.toSend, settled, spend, judgedBudget);
  const cancel = await journal?.jobCancel();
  return {
    job: job.name,
    manifests: job.manifests,
    pricing: job.pricingSource,
    rows: summary.rows,
    valid: summary.valid,
    invalid: summary.invalid,
    errors: [...tally.errors, ...(skipChanged ? [] : conflicts), ...(unpriced !== null ? [unpriced] : [])],
    errorCount: tally.errorCount + (skipChanged ? 0 : conflicts.length) + (unpriced !== null ? 1 : 0),
    conflicts,
    estimatedUsd: roundUsd(tally.total.usd),
    maxUsd: roundUsd(tally.total.max),
    budgetUsd: budget ?? null,
    budgetMayOverrun: mayOverrun,
    fitsBudget: atOnce.fits,
    unpriced,
    reason: atOnce.reason,
    forecast: money.forecast,
    verdict: money.verdict,
    outputCappedRows: tally.capped,
    skipInvalid: flags['skip-invalid'] === true,
    skipChanged,
    journal: journal ? journalStanding(job, spend, tally.remaining, cancel) : null,
    byModel: modelTable(tally.groups),
    shownRows: tally.shownRows,
    requests: tally.requests,
    exitCode: planExitCode(job, summary, conflicts, skipChanged, unpriced, money.verdict),
  };
}

/**
 * The budget the next run would hold the job to (the same rule: flags, then the job file's value when new or
 * changed).
 */
async function budgetOfNextRun(job: ResolvedJob, journal: JournalQueries | undefined): Promise<number | undefined> {
  const saved = await journal?.getJob();
  return budgetInForce({
    stored: saved?.budgetUsd,
    given: job.budgetFlag.given,
    lift: job.budgetFlag.lift,
    created: saved === undefined,
    file: job.fileBudget,
    fileSeen: saved?.jobFileBudget,
  }).budgetUsd;
}

/** Reads every manifest row into the tally, judging the valid ones against the journal; a bad manifest throws. */
async function scanJob(
  job: ResolvedJob,
  budget: number | undefined,
  standing: PlanAgainstJournal,
  tally: Tally,
): Promise<ScanSummary> {
  const { flags } = job;
  const reserveEstimate = flags['budget-may-overrun'];
  const willSend = (row: Pick<ManifestRow, 'id' | 'kind' | 'request'>, usdEstimate: number, max: number): void =>
    tallyToSend(tally, row, usdEstimate, max, reserveEstimate);
  // Rows are judged against the journal in batches, in manifest order, while the scan reads on.
  const judging = new BatchedJudge(standing, willSend);
  try {
    const summary = await scanManifests(
      job.manifests,
      job.pricing,
      {
        valid: ({ row, estimate }) => {
          const { max, capAdded } = sentBound(row, estimate.usd, budget, job.pricing);
          if (capAdded) tally.capped++;
          tallyValid(tally, row, estimate, max);
          judging.add(row, estimate.usd, max);
          if (tally.requests.length < (flags['show-requests'] ?? 0))
            tally.requests.push(plannedRequest(row, budget !== undefined));
        },
        invalid: (entry) => {
          for (const e of entry.errors) {
            tally.errorCount++;
            if (tally.errors.length < SHOWN_ERRORS) tally.errors.push(formatRowError(e));
          }
        },
      },
      undefined,
      metaColumnList(flags['meta-columns']),
    );
    await judging.done();
    // Rows the operator adopted (`gbatch retry <id>`) that no manifest lists: run sends them as well.
    for (const item of standing.adoptedOutside()) {
      const sent = budget === undefined ? { request: item.request } : withOutputCap(item.kind, item.request);
      willSend(item, item.estimateUsd, Math.max(item.estimateUsd, billBound(item.kind, sent.request, job.pricing)));
    }
    return summary;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * What the gateway can bill at most for a valid row as run sends it: under a budget, an uncapped text row gets
 * the default cap.
 */
function sentBound(
  row: ManifestRow,
  usdEstimate: number,
  budget: number | undefined,
  pricing: PricingTable,
): { max: number; capAdded: boolean } {
  const sent = budget === undefined ? { request: row.request } : withOutputCap(row.kind, row.request);
  // The row's canonical JSON has the request's bytes; a cap added to it is serialised anew.
  const max = Math.max(
    usdEstimate,
    billBound(
      row.kind,
      sent.request,
      pricing,
      sent.request === row.request ? Buffer.byteLength(row.requestJson, 'utf8') : undefined,
    ),
  );
  return { max, capAdded: sent.added !== undefined };
}

/** Counts a valid row in the totals, its model's group and the rows shown. */
function tallyValid(tally: Tally, row: ManifestRow, estimate: Estimate, max: number): void {
  tally.total.usd += estimate.usd;
  tally.total.max += max;
  const resolution = estimateResolution(estimate);
  const key = `${row.model}\u0000${resolution ?? ''}`;
  const group = tally.groups.get(key) ?? { model: row.model, resolution, rows: 0, estimatedUsd: 0, maxUsd: 0 };
  group.rows++;
  group.estimatedUsd += estimate.usd;
  group.maxUsd += max;
  tally.groups.set(key, group);
  if (tally.shownRows.length < SHOWN_ROWS)
    tally.shownRows.push({
      id: row.id,
      kind: row.kind,
      model: row.model,
      resolution,
      estimatedUsd: estimate.usd,
      maxUsd: max,
    });
}

/** Counts a row a run would still send, reserved at its bound (its estimate under --budget-may-overrun). */
function tallyToSend(
  tally: Tally,
  row: Pick<ManifestRow, 'id' | 'kind' | 'request'>,
  usdEstimate: number,
  max: number,
  reserveEstimate: boolean,
): void {
  tally.remaining.rows++;
  tally.remaining.usd += usdEstimate;
  tally.remaining.max += max;
  tally.toSend.push({
    ...rowLikeness(row.kind, row.request),
    id: row.id,
    estimateUsd: usdEstimate,
    reserveUsd: reserveEstimate ? usdEstimate : max,
  });
}

/**
 * Whether the job fits its budget all at once, judged on what the gateway can bill (the estimate only under
 * --budget-may-overrun), plus what the journal holds; null without a budget to judge.
 */
function judgeAtOnce(
  budget: number | undefined,
  spend: Spend,
  remaining: Tally['remaining'],
  mayOverrun: boolean,
  hasJournal: boolean,
): { fits: boolean | null; reason: string | null } {
  if (budget === undefined) return { fits: null, reason: null };
  const rest = mayOverrun ? remaining.usd : remaining.max;
  const needed = roundUsd(spend.actualUsd + spend.reservedUsd + rest);
  if (needed <= budget) return { fits: true, reason: null };
  const held = hasJournal
    ? ` (spent ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)}, remaining rows ${usd(rest)})`
    : '';
  return {
    fits: false,
    reason:
      `the job needs up to ${usd(needed)}${held}` +
      ` against a budget of ${usd(budget, 2)} at once: a run sends rows as settled ones free their reservations and defers what never fits`,
  };
}

/** The job's total as the cost history forecasts it, and, under a budget, the verdict on it. */
async function forecastOf(
  job: ResolvedJob,
  journal: JournalQueries | undefined,
  toSend: readonly ForecastRow[],
  settled: readonly SettledCostRecord[],
  spend: Spend,
  budget: number | undefined,
): Promise<{ forecast: Forecast; verdict: PlanVerdict | null }> {
  const account = currentAccount(job);
  return planForecast(toSend, settled, {
    committedUsd: roundUsd(spend.actualUsd + spend.reservedUsd),
    budgetUsd: budget,
    account,
    driftRatio: planDriftRatio((await journal?.drifts()) ?? [], account, job.pricing),
  });
}

/** What the journal holds of the job: spend, the rows still to send, and its cancellation. */
function journalStanding(
  job: ResolvedJob,
  spend: Spend,
  remaining: Tally['remaining'],
  cancel: JobCancel | undefined,
): NonNullable<PlanResult['journal']> {
  return {
    location: printableLocation(job.statePath),
    spentUsd: spend.actualUsd,
    reservedUsd: spend.reservedUsd,
    remainingRows: remaining.rows,
    remainingEstimatedUsd: roundUsd(remaining.usd),
    remainingMaxUsd: roundUsd(remaining.max),
    cancelled: cancel ? { at: cancel.at, reason: cancel.reason ?? null } : null,
  };
}

/** The rows by model and resolution, in order, their sums rounded. */
function modelTable(groups: ReadonlyMap<string, PlanGroup>): PlanGroup[] {
  return [...groups.values()]
    .sort((a, b) => a.model.localeCompare(b.model) || String(a.resolution).localeCompare(String(b.resolution)))
    .map((g) => ({ ...g, estimatedUsd: roundUsd(g.estimatedUsd), maxUsd: roundUsd(g.maxUsd) }));
}

/** `gbatch plan`'s exit code (PlanResult.exitCode). */
function planExitCode(
  job: ResolvedJob,
  summary: ScanSummary,
  conflicts: readonly string[],
  skipChanged: boolean,
  unpriced: string | null,
  verdict: PlanVerdict | null,
): PlanResult['exitCode'] {
  // Invalid rows stop `run` only without --skip-invalid (a flag or the job file's option).
  // Changed rows, only without --skip-changed.
  if (
    (summary.invalid > 0 && !job.flags['skip-invalid']) ||
    (conflicts.length > 0 && !skipChanged) ||
    unpriced !== null
  )
    return 2;
  return verdict?.verdict === 'likely_stops_short' ? 3 : 0;
}

/**
 * The body exactly as the submitter serialises it: the request the journal stores (its canonical JSON,
 * parsed), with the default output cap a budget adds.
 */
function plannedRequest(row: ManifestRow, budgeted: boolean): PlannedRequest {
  const stored = JSON.parse(row.requestJson) as Record<string, unknown>;
  const request = budgeted ? withOutputCap(row.kind, stored).request : stored;
  return { id: row.id, method: 'POST', url: SUBMIT_URLS[row.kind], body: JSON.stringify(request) };
}

const SUBMIT_URLS = Object.fromEntries(Object.entries(BATCH_URLS).map(([url, kind]) => [kind, url])) as Record<
  ItemKind,
  string
>;

const JUDGE_BATCH = 500;

/** The gateway account the environment names (a hash, as the history keeps it); undefined without one. */
function currentAccount(job: ResolvedJob): string | undefined {
  try {
    const access = gatewayAccess(job.flags, process.env);
    return accountId(access.baseUrl, access.apiKey);
  } catch {
    return undefined; // plan needs no gateway: the history of every account is used
  }
}

/** Collects rows from the (synchronous) scan and judges them a batch at a time, in order. */
class BatchedJudge {
  private batch: Array<{ row: ManifestRow; usd: number; max: number }> = [];
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly standing: PlanAgainstJournal,
    private readonly onRemaining: (row: ManifestRow, usd: number, max: number) => void,
  ) {}

  add(row: ManifestRow, usdEstimate: number, max: number): void {
    this.batch.push({ row, usd: usdEstimate, max });
    if (this.batch.length >= JUDGE_BATCH) this.flush();
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    this.chain = this.chain
      .then(async () => {
        if (this.failure !== undefined) return;
        const standings = await this.standing.judgeRows(batch.map((b) => b.row));
        standings.forEach((standing, i) => {
          if (standing === 'remaining') this.onRemaining(batch[i]!.row, batch[i]!.usd, batch[i]!.max);
        });
      })
      .catch((err: unknown) => {
        this.failure ??= err; // held for done(): the scan goes on meanwhile
      });
  }

  async done(): Promise<void> {
    this.flush();
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
  }
}
