// Whether a row short of headroom waits for some to be freed, or is deferred. Pure.

/** What may still free headroom, as a runner sees it when a row does not fit. */
export interface HeadroomOutlook {
  /**
   * This runner's reservations that may still settle or be released: rows sent, and rows queued in its lane. A row
   * waiting for headroom holds none (it waits outside the lane), so each of these goes ahead without waiting on it.
   */
  ownLive: number;
  /** The journal's word that a row of the job, at any runner, is in flight (sent: it may still settle). */
  jobInFlight: boolean;
}

/**
 * Whether waiting could ever free headroom: with nothing reserved here and nothing of the job in flight anywhere,
 * nothing will settle, and the row is deferred (the run ends on the budget, exit 3).
 */
export function waitingMayFreeHeadroom(outlook: HeadroomOutlook): boolean {
  return outlook.ownLive > 0 || outlook.jobInFlight;
}
