// An `events` row as both adapters select it, turned into the journal's records of it.
import type { ItemEventRecord } from './journal-operator.js';
import type { EventLogRecord } from './journal-reports.js';

/** The columns of one event, under their names in the `events` table. */
export interface EventRow {
  seq: number;
  item_id: string;
  at: number;
  event: string;
  from_state: string | null;
  to_state: string;
  detail: string | null;
}

/** The columns an item's own events are read with (the item and the order are the query's). */
export const ITEM_EVENT_COLUMNS = 'at, event, from_state, to_state, detail';
export const EVENT_LOG_COLUMNS = `seq, item_id, ${ITEM_EVENT_COLUMNS}`;

export function itemEventOf(row: Omit<EventRow, 'seq' | 'item_id'>): ItemEventRecord {
  return {
    at: row.at,
    event: row.event,
    from: row.from_state,
    to: row.to_state,
    detail: row.detail ? JSON.parse(row.detail) : null,
  };
}

export function eventLogRecordOf(row: EventRow): EventLogRecord {
  return { seq: row.seq, itemId: row.item_id, ...itemEventOf(row) };
}
