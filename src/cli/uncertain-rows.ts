// The uncertain rows an operator must find in the gateway's dashboard, read from the journal for the advice.
import { promptStart } from '../core/prompt-start.js';
import type { Journal } from '../journal/index.js';
import { lastSubmitTimes } from '../journal/history.js';
import type { UncertainRow } from './advice.js';

export function uncertainRows(journal: Journal, limit: number): UncertainRow[] {
  const items = journal.list(['uncertain'], limit);
  const times = lastSubmitTimes(journal, items.map((i) => i.id));
  return items.map((item) => ({
    id: item.id,
    kind: item.kind,
    submittedAt: times.get(item.id),
    promptStart: promptStart(item.kind, item.request),
    error: item.lastError?.message ?? null,
  }));
}
