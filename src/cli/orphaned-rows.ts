// How `status` shows the orphaned rows (src/core/orphans.ts): in none of the manifests of the job's last
// run, so not sent; with the commands that send them (`retry`) or remove them (`forget`), ready to paste.
import { forgetRefusal } from '../core/orphans.js';
import { quoteArg } from '../core/shell-text.js';
import type { OrphanSummary } from '../journal/index.js';

export function orphanedJson(orphans: OrphanSummary): Record<string, unknown> {
  return {
    count: orphans.total,
    by_state: orphans.counts,
    items: orphans.rows.map((row) => ({ id: row.id, state: row.state, attempts: row.attempts })),
  };
}

/** The lines of `status` (none when nothing is orphaned); `named` is how a command names the job's journal. */
export function orphanedLines(orphans: OrphanSummary, named: string): string[] {
  if (orphans.total === 0) return [];
  const byState = Object.entries(orphans.counts)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  const lines = [
    '',
    `orphaned (${orphans.total}: ${byState}): in none of the manifests of the job's last run, so not sent; kept with their history`,
  ];
  for (const row of orphans.rows)
    lines.push(`  ${row.id} ${row.state}${row.attempts > 0 ? `, ${row.attempts} attempt(s)` : ''}`);
  if (orphans.total > orphans.rows.length)
    lines.push(`  ... ${orphans.total - orphans.rows.length} more (gbatch report --format csv)`);
  const sendable = orphans.rows
    .filter((row) => row.state === 'pending' || row.state === 'deferred')
    .map((row) => quoteArg(row.id));
  if (sendable.length > 0) lines.push(`  to send them all the same: gbatch retry ${named} ${sendable.join(' ')}`);
  const removable = orphans.rows
    .filter((row) => forgetRefusal(row, row.id) === undefined)
    .map((row) => quoteArg(row.id));
  if (removable.length > 0) lines.push(`  to remove those never sent: gbatch forget ${named} ${removable.join(' ')}`);
  return lines;
}
