// Whether a row short of headroom waits for some to be freed, or is deferred. Pure.

/** What may still free headroom, as a runner sees it when a row does not fit. */
export interface HeadroomOutlook {
  /** This runner's reservations of rows sent (their intent in the journal) that may still settle or be released. */
  sent: number;
  /** This runner's reservations of rows not sent yet: queued in its lane, or their intent on its way. */
  unsent: number;
  /**
   * Whether those unsent rows can go ahead: a slot of the lane is held by a row that is not itself waiting for
   * headroom. When every slot is held by such a waiter, the rows queued behind them never move while they wait.
   */
  laneMoves: boolean;
  /** The journal's word that a row of the job, at any runner, is in flight (sent: it may still settle). */
  jobInFlight: boolean;
}

/**
 * Whether waiting could ever free headroom. A runner's waiting never depends on a reservation it holds for a row that
 * cannot move until the wait ends: with nothing sent here or anywhere in the job, and no unsent row able to go
 * ahead, nothing will settle, and the row is deferred.
 */
export function waitingMayFreeHeadroom(outlook: HeadroomOutlook): boolean {
  return outlook.sent > 0 || outlook.jobInFlight || (outlook.unsent > 0 && outlook.laneMoves);
}
