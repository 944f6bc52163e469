// How `status` shows the orphaned rows (src/core/orphans.ts): in none of the manifests of the job's last
// run, or changed in one and skipped (--skip-changed), so not sent; with the commands that send them
// (`retry`: a changed one with its manifest row's new content) or remove them (`forget`), ready to paste.
import { forgetRefusal } from '../core/orphans.js';
import { commandNaming } from '../core/job-address.js';
import type { OrphanSummary } from '../journal/index.js';
import { resendCommand } from '../job/advice.js';

const NOT_SENT =
  "in none of the manifests of the job's last run, or changed in one and skipped (--skip-changed): no run sends them on its own";
const RESENT = "the next run sends each, one changed in its manifest with the manifest's new content";

/** `resent`: the listed rows `gbatch retry` has the next run send (StatusData.orphansResent). */
export function orphanedJson(
  orphans: OrphanSummary,
  resent: readonly string[],
  named: string,
): Record<string, unknown> {
  return {
    count: orphans.total,
    by_state: orphans.counts,
    items: orphans.rows.map((row) => ({ id: row.id, state: row.state, attempts: row.attempts })),
    note: orphans.total === 0 ? null : NOT_SENT,
    send: resendCommand(resent, named),
  };
}

/** The lines of `status` (none when nothing is orphaned); `named` is how a command names the job's journal. */
export function orphanedLines(orphans: OrphanSummary, resent: readonly string[], named: string): string[] {
  if (orphans.total === 0) return [];
  const byState = Object.entries(orphans.counts)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  const lines = ['', `orphaned (${orphans.total}: ${byState}): ${NOT_SENT}; kept with their history`];
  for (const row of orphans.rows)
    lines.push(`  ${row.id} ${row.state}${row.attempts > 0 ? `, ${row.attempts} attempt(s)` : ''}`);
  if (orphans.total > orphans.rows.length)
    lines.push(
      `  ... ${orphans.total - orphans.rows.length} more: ${commandNaming(named, 'report', '--format', 'csv')}`,
    );
  const send = resendCommand(resent, named);
  if (send) lines.push(`  to send them all the same: ${send}   (${RESENT})`);
  const removable = orphans.rows
    .filter((row) => forgetRefusal(row, row.id) === undefined)
    .map((row) => ({ id: row.id }));
  if (removable.length > 0) lines.push(`  to remove those never sent: ${commandNaming(named, 'forget', ...removable)}`);
  return lines;
}
