// The `store` transition of many answered rows whose results lines are durable, as changes: one write
// path (the planner's) for markStored on every journal.
import type { Change } from './change.js';

/** Each row moves succeeded -> downloaded, pointing at `outputPath`, its event carrying `detail`. */
export function storeChanges(ids: readonly string[], outputPath: string, detail: Record<string, unknown>): Change[] {
  return ids.map((id) => ({ id, event: 'store', expect: 'succeeded', patch: { outputPath }, detail }));
}
