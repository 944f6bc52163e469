// The job's event log, read in pages (seq order) so a million transitions never sit in memory at once.
import type { EventLogRecord, JournalQueries } from './store.js';

export async function* eventLog(
  store: Pick<JournalQueries, 'eventLogPage'>,
  pageSize = 5000,
): AsyncGenerator<EventLogRecord> {
  for (let after = 0; ;) {
    const page = await store.eventLogPage(after, pageSize);
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1]!.seq;
  }
}
