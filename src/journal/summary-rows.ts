// Pure: the job's summary rows (its rows counted and summed per state, kind, model, resolution and error code, '' for
// none), as both adapters keep them, turned into what `status`, `report` and a row browser show.
import { roundUsd } from '../core/money.js';
import { ITEM_STATES, type ItemState } from '../core/states.js';
import type { ReportSums, RowFacets, SumRow } from './store.js';

export interface Sums {
  items: number;
  settled: number;
  estimated: number;
  actual: number;
  settled_estimated: number;
  reserved: number;
  over: number;
  over_n: number;
  gateway: number;
  gateway_n: number;
  tokens: number;
  tokens_n: number;
  unmetered: number;
}

export interface SummaryRow extends Sums {
  state: string;
  kind: string;
  model: string;
  resolution: string;
  error_code: string;
}

export function emptySums(): Sums {
  return {
    items: 0,
    settled: 0,
    estimated: 0,
    actual: 0,
    settled_estimated: 0,
    reserved: 0,
    over: 0,
    over_n: 0,
    gateway: 0,
    gateway_n: 0,
    tokens: 0,
    tokens_n: 0,
    unmetered: 0,
  };
}

function addInto(into: Sums, row: Sums): void {
  for (const key of Object.keys(into) as Array<keyof Sums>) into[key] += Number(row[key]);
}

/** A sum kept by adding and taking away carries float dust: money is shown to the nano-dollar. */
const money = (x: number): number => roundUsd(x);

function sumRow(s: Sums): SumRow {
  const none = s.items === 0;
  return {
    items: s.items,
    settled: none ? null : s.settled,
    estimated: none ? null : money(s.estimated),
    actual: s.settled > 0 ? money(s.actual) : null,
    settled_estimated: s.settled > 0 ? money(s.settled_estimated) : null,
    reserved: none ? null : money(s.reserved),
    over: s.over_n > 0 ? money(s.over) : null,
    gateway: s.gateway_n > 0 ? money(s.gateway) : null,
    gateway_n: s.gateway_n,
    tokens: s.tokens_n > 0 ? s.tokens : null,
    unmetered: none ? null : s.unmetered,
  };
}

/** NULL first, then by code point: SQLite's ORDER BY of the text columns. */
function compareKey(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The report's sums: the whole job, and per model and resolution of the rows that are not invalid. */
export function sumRows(rows: readonly SummaryRow[]): ReportSums {
  const total = emptySums();
  const groups = new Map<string, { model: string | null; resolution: string | null; sums: Sums }>();
  for (const row of rows) {
    addInto(total, row);
    if (row.state === 'invalid') continue;
    const key = `${row.model}\u0000${row.resolution}`;
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = { model: row.model === '' ? null : row.model, resolution: row.resolution || null, sums: emptySums() }),
      );
    addInto(group.sums, row);
  }
  return {
    total: sumRow(total),
    groups: [...groups.values()]
      .filter((g) => g.sums.items !== 0)
      .sort((a, b) => compareKey(a.model, b.model) || compareKey(a.resolution, b.resolution))
      .map((g) => {
        // Per model and resolution the report shows no unmetered count (the total carries it).
        const { unmetered: _unmetered, ...sums } = sumRow(g.sums);
        return { model: g.model as string, resolution: g.resolution, ...sums };
      }),
  };
}

export function stateCounts(rows: readonly SummaryRow[]): Record<ItemState, number> {
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
  for (const row of rows) counts[row.state as ItemState] += Number(row.items);
  return counts;
}

/** The rows counted per kind and state (the summary keeps them finer: per model, resolution and error code too). */
export function kindStateRows(rows: readonly SummaryRow[]): Array<{ kind: string; state: string; n: number }> {
  const totals = new Map<string, { kind: string; state: string; n: number }>();
  for (const row of rows) {
    const key = `${row.kind}\u0000${row.state}`;
    const total = totals.get(key) ?? { kind: row.kind, state: row.state, n: 0 };
    total.n += Number(row.items);
    totals.set(key, total);
  }
  return [...totals.values()];
}

/** The distinct models and error codes with their row counts, most rows first. */
export function rowFacets(rows: readonly SummaryRow[]): RowFacets {
  const models = new Map<string, number>();
  const codes = new Map<string, number>();
  for (const row of rows) {
    if (row.model !== '') models.set(row.model, (models.get(row.model) ?? 0) + Number(row.items));
    if (row.error_code !== '') codes.set(row.error_code, (codes.get(row.error_code) ?? 0) + Number(row.items));
  }
  const order = <T extends { rows: number }>(a: T & { key: string }, b: T & { key: string }) =>
    b.rows - a.rows || compareKey(a.key, b.key);
  return {
    models: [...models]
      .filter(([, n]) => n > 0)
      .map(([key, rows]) => ({ key, rows }))
      .sort(order)
      .map(({ key, rows }) => ({ model: key, rows })),
    errorCodes: [...codes]
      .filter(([, n]) => n > 0)
      .map(([key, rows]) => ({ key, rows }))
      .sort(order)
      .map(({ key, rows }) => ({ code: key, rows })),
  };
}

/** The models (and their kinds and states) a row filter may match, by the summary: where to look for its rows. */
export function matchingRows(
  rows: readonly SummaryRow[],
  filter: { states?: readonly string[]; kinds?: readonly string[]; model?: string; errorCode?: string },
): SummaryRow[] {
  return rows.filter(
    (r) =>
      Number(r.items) > 0 &&
      (!filter.states || filter.states.includes(r.state)) &&
      (!filter.kinds || filter.kinds.includes(r.kind)) &&
      (filter.model === undefined || r.model === filter.model) &&
      (filter.errorCode === undefined || r.error_code === filter.errorCode),
  );
}
