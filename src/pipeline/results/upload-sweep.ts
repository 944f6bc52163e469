// At a run's end, the multipart uploads (and partial objects) that killed runs left under the prefix for rows
// that will never be downloaded again (downloaded, failed, cancelled...): nothing else would ever abort them,
// and a store bills their parts. Only keys of this job's own rows are touched: another job's uploads under the
// same prefix, or a row still to download (its next attempt clears its own), are left alone.
import { safeFileStem } from '../../core/paths.js';
import { TERMINAL } from '../../core/states.js';
import type { ObjectStore } from '../../io/output-store.js';
import type { JournalQueries } from '../../journal/index.js';

/** The rows' video names (`<stem>.mp4`) whose uploads were swept. */
export async function sweepLeftUploads(
  journal: Pick<JournalQueries, 'iterate'>,
  store: ObjectStore,
): Promise<string[]> {
  const left = await store.unfinishedUploads();
  if (left.length === 0) return [];
  const prefix = store.location.slice(store.location.indexOf('/', 's3://'.length) + 1);
  const names = new Set(left.map((u) => u.key.slice(prefix.length).replace(/\.gbatch-partial$/, '')));
  const swept: string[] = [];
  for await (const item of journal.iterate({ kinds: ['video'], states: [...TERMINAL] })) {
    const name = `${safeFileStem(item.id)}.mp4`;
    if (!names.has(name)) continue;
    await store.target(name).clear();
    swept.push(name);
  }
  return swept;
}
