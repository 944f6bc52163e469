// The line `run` logs when the journal holds rows its manifests no longer list (src/core/orphans.ts).
import type { OrphanSummary } from '../journal/index.js';

/** How many orphaned ids `run` names (and `status` lists). */
export const SHOWN_ORPHANS = 20;

export function orphanedLine(orphans: OrphanSummary): string {
  const byState = Object.entries(orphans.counts).map(([state, n]) => `${state} ${n}`).join(', ');
  const ids = orphans.rows.map((row) => row.id).join(', ');
  const more = orphans.total > orphans.rows.length ? ` and ${orphans.total - orphans.rows.length} more` : '';
  return `${orphans.total} row(s) of the journal are in none of this run's manifests (${byState}): not sent; \`gbatch status\` lists them: ${ids}${more}`;
}
