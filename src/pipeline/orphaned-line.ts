// The line `run` logs when the journal holds rows its manifests no longer list (src/core/orphans.ts).
import type { OrphanSummary } from '../journal/index.js';
import type { RunVoice } from './voice/run-voice.js';

/** How many orphaned ids `run` names (and `status` lists). */
export const SHOWN_ORPHANS = 20;

/** `skippedChanged`: rows this run's ingest skipped as changed (--skip-changed), which are among them. */
export function orphanedLine(orphans: OrphanSummary, voice: RunVoice, skippedChanged = 0): string {
  const byState = Object.entries(orphans.counts)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  const ids = orphans.rows.map((row) => row.id).join(', ');
  const more = orphans.total > orphans.rows.length ? ` and ${orphans.total - orphans.rows.length} more` : '';
  const where =
    skippedChanged > 0
      ? "in none of this run's manifests, or changed there and skipped (--skip-changed)"
      : "in none of this run's manifests";
  return voice.orphaned(orphans.total, where, byState, `${ids}${more}`);
}
