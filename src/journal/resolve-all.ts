// The operator's decision for every uncertain row at once (`resolve --all-uncertain`), page by page:
// each page is read and written in one transaction holding the write lock, so a row changed by a live
// runner between the read and the write cannot be decided (and each write is compare-and-set as well).
import type { Change, Journal } from './sqlite/journal.js';

export type BulkDecision = 'resubmit' | 'abandon';

const PAGE = 500;

/** Applies `decision` to every uncertain row; returns their ids in manifest order. */
export function resolveAllUncertain(journal: Journal, decision: BulkDecision): string[] {
  const resolved: string[] = [];
  let after = 0;
  for (;;) {
    const page = journal.db.transaction(() => {
      const items = journal.list(['uncertain'], PAGE, after);
      journal.apply(items.map((item): Change => (decision === 'resubmit'
        ? { id: item.id, event: 'resubmit', patch: { reservedUsd: 0, lastError: null }, detail: { by: 'operator', bulk: true } }
        : {
          id: item.id, event: 'abandon', patch: { reservedUsd: 0, lastError: { message: 'abandoned by the operator (was uncertain)' } },
          detail: { by: 'operator', bulk: true },
        })));
      return items;
    }).immediate();
    if (page.length === 0) return resolved;
    for (const item of page) resolved.push(item.id);
    after = page[page.length - 1]!.seq;
  }
}
