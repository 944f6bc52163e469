// `resolve --all-uncertain`: the operator's one decision applied to every uncertain row, a page at a time.
import { ABANDONED_BOOKED, ABANDONED_NOT_BILLED, BOOKED_MESSAGE, NOT_BILLED_MESSAGE } from '../core/abandon.js';
import type { Change } from './change.js';
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import type { Item } from './item.js';
import type { JournalRun } from './journal-run.js';

export type BulkDecision = 'resubmit' | 'abandon';

const PAGE = 500;

function decisionFor(item: Item, decision: BulkDecision, notBilled: boolean, operator: Operator): Change {
  if (decision === 'resubmit')
    return {
      id: item.id,
      event: 'resubmit',
      patch: { reservedUsd: 0, lastError: null },
      ...(notBilled ? { notBilled: true } : {}),
      detail: { ...operator, bulk: true, ...(notBilled ? { notBilled: true } : {}) },
    };
  // An abandoned uncertain row may have been billed: its bound stays booked unless the operator says it was not.
  const error = notBilled
    ? { type: ABANDONED_NOT_BILLED, message: NOT_BILLED_MESSAGE }
    : { type: ABANDONED_BOOKED, message: BOOKED_MESSAGE };
  return {
    id: item.id,
    event: 'abandon',
    patch: { ...(notBilled ? { reservedUsd: 0 } : {}), lastError: error },
    detail: { ...operator, bulk: true, ...(notBilled ? { notBilled: true } : {}) },
  };
}

/** Applies `decision` to every uncertain row; returns their ids in manifest order. */
export async function resolveAllUncertain(
  journal: JournalRun,
  decision: BulkDecision,
  notBilled = false,
  operator: Operator = COMMAND_LINE,
): Promise<string[]> {
  const resolved: string[] = [];
  let after = 0;
  for (;;) {
    // Each page is read and written under one write lock: a live run cannot move a row in between.
    const page = await journal.decideAndApply(async (reader) => {
      const items = await reader.list(['uncertain'], PAGE, after);
      return { changes: items.map((item) => decisionFor(item, decision, notBilled, operator)), result: items };
    });
    if (page.length === 0) return resolved;
    for (const item of page) resolved.push(item.id);
    after = page[page.length - 1]!.seq;
  }
}
