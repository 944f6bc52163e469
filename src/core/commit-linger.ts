// How long a change waits in a shared journal's commit queue for others to share its commit. Pure.
// Each commit on a journal every runner shares (PostgreSQL) is a round trip whose cost to the server is mostly per
// commit, not per row (BENCHMARKS.md, `pg-ceiling`): with answers spread over a second, slots free one at a time
// and each row pays for a commit of its own. A batch that waits a little gathers the slots that free close
// together; their next requests then leave together, their answers come back together, and the rows stay in
// bunches that share their commits. The wait is a small share of a request's round trip, so it costs a slot's
// cycle at most that share.

/** The share of a typical exchange a batch waits for companions: a slot's cycle grows by at most 0.5 %. */
export const LINGER_SHARE = 1 / 200;

/** The longest wait, whatever the exchanges take: a slow gateway does not hold answers back for long. */
export const MAX_LINGER_MS = 10;

/** How much one exchange moves the typical one: the mean of roughly the last twenty. */
const SMOOTHING = 1 / 20;

/** The wait for a batch's first change, given the typical exchange (undefined: none answered yet, no wait). */
export function commitLingerMs(typicalExchangeMs: number | undefined): number {
  if (typicalExchangeMs === undefined || !(typicalExchangeMs > 0)) return 0;
  return Math.min(MAX_LINGER_MS, typicalExchangeMs * LINGER_SHARE);
}

/** The typical exchange after one more took `exchangeMs`: an exponentially weighted mean. */
export function typicalExchangeAfter(typicalMs: number | undefined, exchangeMs: number): number {
  if (typicalMs === undefined) return exchangeMs;
  return typicalMs + (exchangeMs - typicalMs) * SMOOTHING;
}
