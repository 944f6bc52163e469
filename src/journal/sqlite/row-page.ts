// A page of the job's rows for a row browser, in manifest order after a cursor, through the index that holds the
// fewest rows the filters may match (the summary counts them): a rare model or error code is read from its
// index, not found by walking a million rows.
import type Database from 'better-sqlite3';
import type { ItemState } from '../../core/states.js';
import { rowToItem, type Item, type ItemRow } from '../item.js';
import type { RowQuery } from '../store.js';
import { matchingRows, type SummaryRow } from '../summary-rows.js';
import { summaryRows } from './item-sums.js';
import { stateKindWhere } from './state-kind-where.js';

/** The error-code expression of the index items_by_error_code (migrations/015-item-sums.sql), verbatim. */
const ERROR_CODE = `(CASE WHEN json_valid(last_error) THEN json_extract(last_error, '$.code') END)`;
/** Rows an id prefix may match that are read from the id index and sorted; more are found in manifest order. */
const PREFIX_SORT_LIMIT = 20_000;

interface Driver {
  /** The index and its condition; each of `keys` is one ordered walk, merged by seq. */
  index: string;
  condition: string;
  keys: unknown[];
}

export function rowPage(db: Database.Database, columns: string, query: RowQuery): Item[] {
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit)));
  const afterSeq = query.afterSeq ?? 0;
  const summary = summaryRows(db);
  const matching = matchingRows(summary, query);
  if (matching.length === 0) return [];
  const { where, args } = filters(query);
  const read = (driver: Driver | undefined): Item[] => {
    if (!driver) return select(db, columns, '', where, args, afterSeq, limit);
    const pages = driver.keys.map((key) =>
      select(db, columns, `INDEXED BY ${driver.index}`, [driver.condition, ...where], [key, ...args], afterSeq, limit),
    );
    return pages.length === 1 ? pages[0]! : mergeBySeq(pages, limit);
  };
  if (query.idPrefix !== undefined) {
    const seqs = prefixSeqs(db, query.idPrefix, afterSeq);
    if (seqs !== undefined) return byPrefixSeqs(db, columns, seqs, where, args, limit);
  }
  return read(cheapestDriver(summary, matching, query));
}

function filters(query: RowQuery): { where: string[]; args: unknown[] } {
  const { where, args } = stateKindWhere(query);
  if (query.model !== undefined) {
    where.push('model = ?');
    args.push(query.model);
  }
  if (query.errorCode !== undefined) {
    where.push(`last_error IS NOT NULL AND ${ERROR_CODE} = ?`);
    args.push(query.errorCode);
  }
  if (query.idPrefix !== undefined) {
    where.push('substr(id, 1, length(?)) = ?');
    args.push(query.idPrefix, query.idPrefix);
  }
  return { where, args };
}

/**
 * The walk that reads the fewest rows: an error code's or a model's index, the state index per state, the model
 * index per model of the kinds asked; none (manifest order) when the filters match most rows anyway.
 */
function cheapestDriver(
  summary: readonly SummaryRow[],
  matching: readonly SummaryRow[],
  query: RowQuery,
): Driver | undefined {
  const rowsOf = (rows: readonly SummaryRow[]) => rows.reduce((n, r) => n + Number(r.items), 0);
  const candidates: Array<{ rows: number; driver: Driver }> = [];
  if (query.errorCode !== undefined)
    candidates.push({
      rows: rowsOf(summary.filter((r) => r.error_code === query.errorCode)),
      driver: {
        index: 'items_by_error_code',
        condition: `last_error IS NOT NULL AND ${ERROR_CODE} = ?`,
        keys: [query.errorCode],
      },
    });
  if (query.model !== undefined)
    candidates.push({
      rows: rowsOf(summary.filter((r) => r.model === query.model)),
      driver: { index: 'items_by_model', condition: 'model = ?', keys: [query.model] },
    });
  if (query.states)
    candidates.push({
      rows: rowsOf(summary.filter((r) => query.states!.includes(r.state as ItemState))),
      driver: { index: 'items_by_state', condition: 'state = ?', keys: [...new Set(query.states)] },
    });
  if (query.kinds) {
    const models = [...new Set(matching.map((r) => r.model))];
    if (!models.includes(''))
      candidates.push({
        rows: rowsOf(summary.filter((r) => query.kinds!.includes(r.kind))),
        driver: { index: 'items_by_model', condition: 'model = ?', keys: models },
      });
  }
  const all = rowsOf(summary);
  const best = candidates.sort((a, b) => a.rows - b.rows)[0];
  // A filter that matches a large share of the rows finds a page soonest in manifest order.
  if (!best || best.rows * 4 > all) return undefined;
  return best.driver;
}

function select(
  db: Database.Database,
  columns: string,
  indexed: string,
  where: string[],
  args: unknown[],
  afterSeq: number,
  limit: number,
): Item[] {
  const sql = `SELECT ${columns} FROM items ${indexed} WHERE ${[...where, 'seq > ?'].join(' AND ')} ORDER BY seq LIMIT ?`;
  return (db.prepare(sql).all(...args, afterSeq, limit) as ItemRow[]).map(rowToItem);
}

function mergeBySeq(pages: Item[][], limit: number): Item[] {
  return pages
    .flat()
    .sort((a, b) => a.seq - b.seq)
    .slice(0, limit);
}

/** The seqs after `afterSeq` of the rows whose id starts with `prefix`, sorted, when there are few; else undefined. */
function prefixSeqs(db: Database.Database, prefix: string, afterSeq: number): number[] | undefined {
  const seqs = db
    .prepare('SELECT seq FROM items WHERE id >= ? AND id < ? || char(1114111) AND substr(id, 1, length(?)) = ? LIMIT ?')
    .pluck()
    .all(prefix, prefix, prefix, prefix, PREFIX_SORT_LIMIT + 1) as number[];
  if (seqs.length > PREFIX_SORT_LIMIT) return undefined;
  return seqs.filter((s) => s > afterSeq).sort((a, b) => a - b);
}

function byPrefixSeqs(
  db: Database.Database,
  columns: string,
  seqs: readonly number[],
  where: string[],
  args: unknown[],
  limit: number,
): Item[] {
  const found: Item[] = [];
  const chunk = Math.max(limit, 200);
  for (let i = 0; i < seqs.length && found.length < limit; i += chunk) {
    const sql = `SELECT ${columns} FROM items WHERE seq IN (SELECT value FROM json_each(?)) AND ${where.join(' AND ')} ORDER BY seq LIMIT ?`;
    const rows = db
      .prepare(sql)
      .all(JSON.stringify(seqs.slice(i, i + chunk)), ...args, limit - found.length) as ItemRow[];
    found.push(...rows.map(rowToItem));
  }
  return found;
}
