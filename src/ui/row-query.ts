// The row browser's query: filters read from the URL (each checked against what the journal can hold),
// and a page of rows after a cursor in manifest order.
import { ITEM_STATES, type ItemState } from '../core/states.js';
import type { Item, JournalReports } from '../journal/index.js';

export const ROWS_PER_PAGE = 50;

export interface RowFilter {
  state: ItemState | '';
  kind: string;
  model: string;
  errorCode: string;
  /** Rows whose id starts with this. */
  id: string;
  afterSeq: number;
}

const text = (value: string | null): string => (value ?? '').trim().slice(0, 200);

export function parseRowFilter(params: URLSearchParams): RowFilter {
  const state = params.get('state') ?? '';
  const after = Number(params.get('after') ?? '0');
  return {
    state: (ITEM_STATES as readonly string[]).includes(state) ? (state as ItemState) : '',
    kind: ['chat', 'responses', 'video'].includes(params.get('kind') ?? '') ? params.get('kind')! : '',
    model: text(params.get('model')),
    errorCode: text(params.get('code')),
    id: text(params.get('id')),
    afterSeq: Number.isSafeInteger(after) && after > 0 ? after : 0,
  };
}

export function filterParams(filter: RowFilter, afterSeq = 0): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.state) params.set('state', filter.state);
  if (filter.kind) params.set('kind', filter.kind);
  if (filter.model) params.set('model', filter.model);
  if (filter.errorCode) params.set('code', filter.errorCode);
  if (filter.id) params.set('id', filter.id);
  if (afterSeq > 0) params.set('after', String(afterSeq));
  return params;
}

/** One page of the rows the filter picks, and whether more follow: the journal's row page, never a scan. */
export async function rowPage(journal: JournalReports, filter: RowFilter): Promise<{ rows: Item[]; more: boolean }> {
  const rows = await journal.rowPage({
    ...(filter.state ? { states: [filter.state] } : {}),
    ...(filter.kind ? { kinds: [filter.kind] } : {}),
    ...(filter.model ? { model: filter.model } : {}),
    ...(filter.errorCode ? { errorCode: filter.errorCode } : {}),
    ...(filter.id ? { idPrefix: filter.id } : {}),
    afterSeq: filter.afterSeq,
    limit: ROWS_PER_PAGE + 1,
  });
  return { rows: rows.slice(0, ROWS_PER_PAGE), more: rows.length > ROWS_PER_PAGE };
}
