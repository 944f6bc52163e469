// `resolve --all-uncertain`: the operator's one decision applied to every uncertain row, a page at a time.
import type { Change } from './change.js';
import type { Item } from './item.js';
import type { JournalStore } from './store.js';

export type BulkDecision = 'resubmit' | 'abandon';

const PAGE = 500;

function decisionFor(item: Item, decision: BulkDecision): Change {
  return decision === 'resubmit'
    ? { id: item.id, event: 'resubmit', patch: { reservedUsd: 0, lastError: null }, detail: { by: 'operator', bulk: true } }
    : {
      id: item.id, event: 'abandon', patch: { reservedUsd: 0, lastError: { message: 'abandoned by the operator (was uncertain)' } },
      detail: { by: 'operator', bulk: true },
    };
}

/** Applies `decision` to every uncertain row; returns their ids in manifest order. */
export async function resolveAllUncertain(journal: JournalStore, decision: BulkDecision): Promise<string[]> {
  const resolved: string[] = [];
  let after = 0;
  for (;;) {
    // Each page is read and written under one write lock: a live run cannot move a row in between.
    const page = await journal.decideAndApply(async (reader) => {
      const items = await reader.list(['uncertain'], PAGE, after);
      return { changes: items.map((item) => decisionFor(item, decision)), result: items };
    });
    if (page.length === 0) return resolved;
    for (const item of page) resolved.push(item.id);
    after = page[page.length - 1]!.seq;
  }
}
