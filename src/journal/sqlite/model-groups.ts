// The SQLite journal's read for the pricing check: the rows of some states grouped by kind, model and
// resolution, each group with its first row (the one a refusal names).
import type Database from 'better-sqlite3';
import type { ItemState } from '../../core/states.js';
import type { ModelGroup } from '../store.js';
import { LISTING_CODE } from '../../core/orphans.js';
import { hasNarrowKeys, SOURCE_FILE_READ } from './narrow-keys.js';
import { hasListing } from './orphans.js';

interface GroupRow {
  kind: string;
  model: string | null;
  resolution: string | null;
  rows: number;
  first: number;
}
interface FirstRow {
  id: string;
  state: ItemState;
  source_file: string;
  source_line: number;
}

export function modelGroups(db: Database.Database, states: readonly ItemState[]): ModelGroup[] {
  if (states.length === 0) return [];
  // An orphaned row is not sent (unless a manifest lists it again, which the manifest's own check prices).
  const listed = hasListing(db) ? ` AND orphan <> ${LISTING_CODE.orphaned}` : '';
  const groups = db
    .prepare<string[], GroupRow>(
      `SELECT kind, model, resolution, COUNT(*) AS rows, MIN(seq) AS first FROM items
    WHERE state IN (${states.map(() => '?').join(', ')})${listed} GROUP BY kind, model, resolution ORDER BY first`,
    )
    .all(...states);
  const source = hasNarrowKeys(db) ? SOURCE_FILE_READ : 'source_file';
  const first = db.prepare<[number], FirstRow>(
    `SELECT id, state, ${source} AS source_file, source_line FROM items WHERE seq = ?`,
  );
  return groups.map((group) => {
    const row = first.get(group.first)!;
    return {
      kind: group.kind,
      model: group.model,
      resolution: group.resolution,
      rows: group.rows,
      first: { id: row.id, state: row.state, sourceFile: row.source_file, sourceLine: row.source_line },
    };
  });
}
