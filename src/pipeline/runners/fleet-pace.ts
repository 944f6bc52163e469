// A runner among others looks at the job on a beat (sweeps for runners gone, the job's money, the others'
// last rows), a few statements each time. Every runner of a fleet looking at the same pace multiplies them
// by the fleet's size: at a hundred runners the looks alone outweighed the rows' own writes. Past ten
// runners each looks that much less often, so the fleet as a whole looks about as often as ten runners do.
// A runner gone is still swept within a lease (its lease is many beats long), and the budget stays a hard
// cap whatever the pace: the journal refuses a reservation past it.

export const RUNNERS_AT_FULL_PACE = 10;

/** How many beats apart a runner looks at the job, in a fleet of `runners` (this one included). */
export function fleetPace(runners: number): number {
  return Math.max(1, Math.ceil(runners / RUNNERS_AT_FULL_PACE));
}
