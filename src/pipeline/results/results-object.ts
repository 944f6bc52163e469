// results.jsonl on object storage: every rebuild uploads the whole file from the journal, and the object is
// replaced only when the upload completes, so a reader (or a crash) never sees half of it. There is no
// append in place on object storage; rebuilds are spaced as on disk (results-writer.ts).
import type { ObjectStore } from '../../io/output-store.js';
import type { JournalRunReads } from '../../journal/index.js';
import { writeLines } from './results-file.js';

export const RESULTS_NAME = 'results.jsonl';

/** Uploads results.jsonl whole; the ids of items whose line is now stored and that were `succeeded`. */
export async function writeResultsObject(journal: JournalRunReads, store: ObjectStore): Promise<{ written: string[] }> {
  const settledUpTo = ((await journal.firstOpenSeq()) ?? Number.MAX_SAFE_INTEGER) - 1;
  const { result } = await store.putWhole(RESULTS_NAME, (write) =>
    writeLines(journal, write, { seq: 0, bytes: 0 }, settledUpTo),
  );
  return { written: result.written };
}
