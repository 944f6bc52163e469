// The forecast of a job's cost: P50 and P90 of its total, drawn from what rows like each row were
// billed. Monte Carlo with a seeded PRNG: each trial draws, for every row to send, the ratio
// billed/estimated of one settled row like it (its close likeness, else its loose one) and scales the
// row's estimate by it; a row with no history costs its table estimate (times the drift the gateway was seen
// charging above the table, when there is one). The same trials give the
// verdict (plan-verdict.ts). The forecast never changes what the budget reserves: the bound. Pure.
import { likenessKeys, type RowLikeness } from './row-likeness.js';
import { roundUsd } from './money.js';
import { seededRandom } from './seeded-random.js';

/** A settled row as the history keeps it. */
export interface SettledCost extends RowLikeness {
  estimateUsd: number;
  boundUsd: number;
  actualUsd: number;
}

/** A row the job still has to send, in the order the run sends it. */
export interface ForecastRow extends RowLikeness {
  id: string;
  estimateUsd: number;
  /** What the run reserves for it: the bound (the estimate under --budget-may-overrun). */
  reserveUsd: number;
}

export interface Forecast {
  p50Usd: number;
  p90Usd: number;
  /** Settled rows of the history the forecast drew on (0: none, the table's estimate is used throughout). */
  basisRows: number;
  /** Rows to send that had no row like them in the history: each costs its table estimate. */
  rowsWithoutHistory: number;
}

/** Every trial of a job: its total, the budget that would have sent every row, the rows a budget left unsent. */
export interface JobDraws {
  trials: number;
  totals: Float64Array;
  /** Per trial: the least budget under which the run sends every row (see plan-verdict.ts). */
  finishingBudgets: Float64Array;
  /** Per trial, when a budget was given: the rows the run would defer under it. */
  rowsShort: Float64Array;
  basisRows: number;
  rowsWithoutHistory: number;
}

export interface DrawOptions {
  /** Money the journal already holds for the job (settled + reserved): every total starts from it. */
  committedUsd: number;
  budgetUsd?: number;
  /**
   * The ratio the gateway was seen charging above the pricing table (plan-drift.ts; 1: none): a row with no history
   * costs its estimate times it. Rows with history need none: their ratios are what was billed.
   */
  driftRatio?: number;
  seed?: number;
  trials?: number;
}

export const FORECAST_SEED = 34;
const MOST_TRIALS = 2000;
// A large job's total varies little around its mean (a sum of many independent rows), so its percentiles need
// few trials; the floor keeps the work of a million-row job near DRAW_WORK's order, not ten times it.
const FEWEST_TRIALS = 20;
/** Trials x rows kept under this where the floor allows, so a plan (and a run's start) of a large job stays quick. */
const DRAW_WORK = 4_000_000;

/** Ratios billed/estimated of the history, by close and by loose likeness. */
export class CostHistory {
  private readonly close = new Map<string, number[]>();
  private readonly loose = new Map<string, number[]>();

  constructor(settled: Iterable<SettledCost>) {
    for (const row of settled) {
      if (!(row.estimateUsd > 0) || !Number.isFinite(row.actualUsd)) continue;
      const ratio = row.actualUsd / row.estimateUsd;
      const keys = likenessKeys(row);
      push(this.close, keys.close, ratio);
      push(this.loose, keys.loose, ratio);
    }
  }

  /** The ratios of rows like this one, and the key they were found under; undefined when there are none. */
  like(row: RowLikeness): { key: string; ratios: readonly number[] } | undefined {
    const keys = likenessKeys(row);
    const close = this.close.get(keys.close);
    if (close) return { key: `c${keys.close}`, ratios: close };
    const loose = this.loose.get(keys.loose);
    return loose ? { key: `l${keys.loose}`, ratios: loose } : undefined;
  }
}

/** How many trials a job of `rows` rows is drawn with: as many as the work allowed, within the bounds. */
export function trialsFor(rows: number): number {
  return Math.max(FEWEST_TRIALS, Math.min(MOST_TRIALS, Math.floor(DRAW_WORK / Math.max(1, rows))));
}

export function drawJob(rows: readonly ForecastRow[], history: CostHistory, options: DrawOptions): JobDraws {
  const trials = options.trials ?? trialsFor(rows.length);
  const random = seededRandom(options.seed ?? FORECAST_SEED);
  const basis = new Map<string, number>();
  let withoutHistory = 0;
  const sources = rows.map((row) => {
    const found = history.like(row);
    if (found) basis.set(found.key, found.ratios.length);
    else withoutHistory++;
    return found?.ratios;
  });
  const totals = new Float64Array(trials);
  const finishingBudgets = new Float64Array(trials);
  const rowsShort = new Float64Array(trials);
  const budget = options.budgetUsd;
  const drift = options.driftRatio ?? 1;
  // An infinite ratio (the table said nothing was owed) says nothing of the size of a bill: the estimate stays.
  const unlearned = (row: ForecastRow): number =>
    drift > 1 && Number.isFinite(drift) ? roundUsd(row.estimateUsd * drift) : row.estimateUsd;
  // With no history every trial is the table's estimates: drawn once, copied to the rest.
  const distinctTrials = withoutHistory === rows.length ? Math.min(1, trials) : trials;
  for (let t = 0; t < distinctTrials; t++) {
    // `allSent`: every row sent (the total); `underBudget`: the run's own rule under the given budget.
    let allSent = options.committedUsd;
    let finishing = options.committedUsd;
    let underBudget = options.committedUsd;
    let short = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const ratios = sources[i];
      const cost =
        ratios === undefined ? unlearned(row) : row.estimateUsd * ratios[Math.floor(random() * ratios.length)]!;
      finishing = Math.max(finishing, allSent + row.reserveUsd);
      allSent += cost;
      if (budget !== undefined) {
        if (roundUsd(underBudget + row.reserveUsd) <= budget) underBudget += cost;
        else short++;
      }
    }
    totals[t] = roundUsd(allSent);
    finishingBudgets[t] = roundUsd(finishing);
    rowsShort[t] = short;
  }
  if (distinctTrials < trials) {
    totals.fill(totals[0]!, distinctTrials);
    finishingBudgets.fill(finishingBudgets[0]!, distinctTrials);
    rowsShort.fill(rowsShort[0]!, distinctTrials);
  }
  return {
    trials,
    totals,
    finishingBudgets,
    rowsShort,
    basisRows: distinctBasis(basis),
    rowsWithoutHistory: withoutHistory,
  };
}

export function forecastOf(draws: JobDraws): Forecast {
  return {
    p50Usd: percentile(draws.totals, 0.5),
    p90Usd: percentile(draws.totals, 0.9),
    basisRows: draws.basisRows,
    rowsWithoutHistory: draws.rowsWithoutHistory,
  };
}

/** Nearest rank: the smallest value with at least `q` of the values at or below it. */
export function percentile(values: Float64Array, q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Close keys are subsets of their loose key: a loose key drawn on counts once, with none of its close keys. */
function distinctBasis(basis: Map<string, number>): number {
  let rows = 0;
  for (const [key, count] of basis) {
    if (key.startsWith('l')) rows += count;
    else if (!basis.has(`l${key.slice(1).split('\u0000').slice(0, 3).join('\u0000')}`)) rows += count;
  }
  return rows;
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
