// The body of a budget threshold crossed during a run. `--notify-at` counts what the gateway has billed or
// will bill for work done (the charges of answered rows, settled or not): reservations are upper bounds of
// requests in flight, and a night's first minute reserves most of a budget it will never spend.
// `--notify-reserved-at` is the early warning that counts them, and says so. Pure.
import type { ItemState } from '../core/states.js';
import type { Redactor } from '../gateway/redact.js';
import { dollars, finish, round1, type NotificationBody } from './body-format.js';
import type { ThresholdBasis } from './policy.js';

export interface ThresholdCrossing {
  job: string;
  basis: ThresholdBasis;
  thresholdPct: number;
  /** Charges of answered rows, settled or not. */
  billedUsd: number;
  /** Reserved for requests in flight (their upper bounds), not billed. */
  reservedUsd: number;
  budgetUsd: number;
  counts: Record<ItemState, number>;
  at: number;
  host: string;
}

export function thresholdBody(crossing: ThresholdCrossing, redact: Redactor): NotificationBody {
  const { billedUsd, reservedUsd, budgetUsd } = crossing;
  const committedUsd = billedUsd + reservedUsd;
  const share = (usd: number): number => round1((usd / budgetUsd) * 100);
  const budget = `${crossing.thresholdPct}% of the ${dollars(budgetUsd)} budget`;
  const common = {
    job: crossing.job,
    exit_code: null,
    basis: crossing.basis,
    threshold_pct: crossing.thresholdPct,
    counts: crossing.counts,
    spend_usd: billedUsd,
    reserved_usd: reservedUsd,
    budget_usd: budgetUsd,
    at: new Date(crossing.at).toISOString(),
    host: crossing.host,
  };
  if (crossing.basis === 'billed')
    return finish(
      {
        text:
          `gbatch ${crossing.job}: ${budget} billed: ${dollars(billedUsd)} charged for answered rows (settled or not); ` +
          `the ${dollars(reservedUsd)} reserved for requests in flight is not counted; the run goes on`,
        event: 'budget-threshold',
        ...common,
        billed_pct: share(billedUsd),
      },
      redact,
    );
  return finish(
    {
      text:
        `gbatch ${crossing.job}: ${budget} reserved or billed (an early warning, --notify-reserved-at): ` +
        `${dollars(billedUsd)} billed, ${dollars(reservedUsd)} reserved for requests in flight (the most they may ` +
        `cost, not a charge); the run goes on`,
      event: 'budget-reserved-threshold',
      ...common,
      committed_pct: share(committedUsd),
      committed_usd: committedUsd,
    },
    redact,
  );
}
