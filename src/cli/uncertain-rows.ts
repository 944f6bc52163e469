// The uncertain rows an operator must find in the gateway's dashboard, read from the journal for the advice.
import { promptStart } from '../core/prompt-start.js';
import type { JournalReports, JournalRunReads } from '../journal/index.js';
import type { UncertainRow } from '../job/advice.js';

export async function uncertainRows(journal: JournalRunReads & JournalReports, limit: number): Promise<UncertainRow[]> {
  const items = await journal.list(['uncertain'], limit);
  const times = await journal.lastSubmitTimes(items.map((i) => i.id));
  return items.map((item) => ({
    id: item.id,
    kind: item.kind,
    submittedAt: times.get(item.id),
    promptStart: promptStart(item.kind, item.request),
    error: item.lastError?.message ?? null,
  }));
}
