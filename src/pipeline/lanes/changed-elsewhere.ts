// A row an operator moved while the run held a copy of it (`resolve --abandon` on a pending row): the
// run's write for it fails as stale. That is someone else's decision, not a bug: the row leaves this
// run with one log line, and the run goes on.
import { StaleTransitionError } from '../../journal/index.js';
import { log, type LaneContext } from '../context.js';

/** True (and logged) when `err` is a stale change: the caller drops the row from this run. */
export function changedElsewhere(ctx: LaneContext, err: unknown): err is StaleTransitionError {
  if (!(err instanceof StaleTransitionError)) return false;
  log(
    ctx,
    `${ctx.voice.item} '${err.itemId}' was changed outside this run (now ${err.actual ?? 'in another state'}) before its '${err.event}' was written; dropped from this run`,
  );
  return true;
}
