// The plan's verdict on a budget, one the run then agrees with. Under a binding budget the run sends
// rows in order, each as soon as its reservation (its bound) fits beside what is settled and reserved,
// waiting while rows in flight may still settle; it defers a row only when nothing is in flight and the
// row's bound still does not fit (pipeline/lanes/submitter.ts reserve()). So a run sends every row
// exactly when, for each row, the spend of the rows before it plus its own bound fits the budget: the
// least budget that does so is the trial's finishing budget (forecast.ts), and the chance of finishing
// is the share of trials whose finishing budget is within the budget. Pure.
import { formatUsd, roundUsd } from './money.js';
import { percentile, type ForecastRow, type JobDraws } from './forecast.js';

export type VerdictName = 'fits_at_bound' | 'likely_finishes' | 'likely_stops_short';

/** A row whose bound alone is more than the budget leaves: no run under this budget sends it. */
export interface NeverSentRow {
  id: string;
  boundUsd: number;
  /** The budget that sends it: what the journal holds plus its bound. */
  budgetUsd: number;
}

export interface PlanVerdict {
  verdict: VerdictName;
  /** The chance the run sends every row (1 when every row fits at its bound). */
  chance: number;
  /** About how many rows the run leaves deferred: the median of the trials (0 when it finishes). */
  rowsShort: number;
  /** The least budget under which the run sends every row in 90 % of the trials. */
  finishingBudgetUsd: number;
  /** The first NEVER_SENT_SHOWN rows that can never be sent, in order; `neverSentCount` counts them all. */
  neverSent: NeverSentRow[];
  neverSentCount: number;
}

export const NEVER_SENT_SHOWN = 20;
/** At or above this chance of finishing, the job "will most likely finish". */
const LIKELY = 0.5;

export function planVerdict(
  rows: readonly ForecastRow[],
  draws: JobDraws,
  budgetUsd: number,
  committedUsd: number,
): PlanVerdict {
  const neverSent: NeverSentRow[] = [];
  let neverSentCount = 0;
  let allBounds = committedUsd;
  for (const row of rows) {
    allBounds += row.reserveUsd;
    const needs = roundUsd(committedUsd + row.reserveUsd);
    if (needs <= budgetUsd) continue;
    neverSentCount++;
    if (neverSent.length < NEVER_SENT_SHOWN) neverSent.push({ id: row.id, boundUsd: row.reserveUsd, budgetUsd: needs });
  }
  const finishingBudgetUsd = percentile(draws.finishingBudgets, 0.9);
  if (roundUsd(allBounds) <= budgetUsd)
    return { verdict: 'fits_at_bound', chance: 1, rowsShort: 0, finishingBudgetUsd, neverSent, neverSentCount };
  let finishing = 0;
  for (const needed of draws.finishingBudgets) if (needed <= budgetUsd) finishing++;
  const chance = draws.trials === 0 ? 1 : finishing / draws.trials;
  const likely = neverSentCount === 0 && chance >= LIKELY;
  return {
    verdict: likely ? 'likely_finishes' : 'likely_stops_short',
    chance,
    rowsShort: likely ? 0 : percentile(draws.rowsShort, 0.5),
    finishingBudgetUsd,
    neverSent,
    neverSentCount,
  };
}

/** The verdict in words, one line per statement: the verdict, then each row that can never be sent. */
export function verdictLines(verdict: PlanVerdict, budgetUsd: number): string[] {
  const budget = formatUsd(budgetUsd, 2);
  const lines: string[] = [];
  if (verdict.verdict === 'fits_at_bound')
    lines.push(`Every row fits the budget of ${budget} even at what the gateway can bill.`);
  else if (verdict.verdict === 'likely_finishes')
    lines.push(
      `The job will most likely finish within the budget of ${budget} (${percent(verdict.chance)} chance), though not all ` +
        'at once: the run sends rows as settled ones free their reservations.',
    );
  else
    lines.push(
      `The job will most likely stop short of the budget of ${budget} by about ${verdict.rowsShort} row(s) ` +
        `(${percent(verdict.chance)} chance to finish); a budget of ${budgetText(verdict.finishingBudgetUsd)} finishes it at P90.`,
    );
  for (const row of verdict.neverSent)
    lines.push(
      `Row ${row.id} can never be sent under this budget: its bound is ${formatUsd(row.boundUsd)}; a budget of ` +
        `${budgetText(row.budgetUsd)} sends it.`,
    );
  if (verdict.neverSentCount > verdict.neverSent.length)
    lines.push(
      `... ${verdict.neverSentCount - verdict.neverSent.length} more row(s) can never be sent under this budget.`,
    );
  return lines;
}

/** A budget to suggest, rounded up to the cent: rounded down, it could fall short by a fraction. */
function budgetText(usd: number): string {
  return formatUsd(Math.ceil(roundUsd(usd) * 100) / 100, 2);
}

function percent(chance: number): string {
  return `${Math.round(chance * 100)} %`;
}
