// The header row of a CSV manifest: without its required columns no row can be understood, and a
// column that is neither a request field nor declared metadata would leave with every request.
import { quoteArg } from '../core/shell-text.js';
import { kindsWithField } from './request-schemas.js';
import { quote, type RowIssue } from './types.js';

export const REQUIRED_CSV_COLUMNS = ['id', 'kind', 'model', 'prompt'] as const;

/** Columns that are not request fields of the same name. */
export const CONVENIENCE_COLUMNS: ReadonlySet<string> = new Set(['id', 'kind', 'prompt', 'system', 'body']);

/** A column named `meta.<key>` is metadata under `<key>`, as a column listed in --meta-columns is under its name. */
export const META_PREFIX = 'meta.';

export interface CsvHeader {
  /** Column names, trimmed, in file order. */
  names: readonly string[];
  /** Column index by name. */
  index: ReadonlyMap<string, number>;
  /** Metadata columns (kept in the journal and results.jsonl, never sent): the key each is kept under, by name. */
  meta: ReadonlyMap<string, string>;
}

/**
 * `metaColumns`: the names --meta-columns lists (a name no column has is ignored: a job may list several files'
 * columns).
 */
export function readCsvHeader(
  cells: readonly string[],
  metaColumns: readonly string[] = [],
): { header?: CsvHeader; issues: RowIssue[] } {
  const names = cells.map((c) => c.trim());
  const index = new Map<string, number>();
  const meta = new Map<string, string>();
  const declared = new Set(metaColumns);
  const issues: RowIssue[] = [];
  names.forEach((name, i) => {
    if (name === '') issues.push({ reason: `column ${i + 1} of the header has no name` });
    else if (index.has(name)) issues.push({ field: name, reason: `column ${quote(name)} appears twice in the header` });
    else {
      index.set(name, i);
      const issue = columnIssue(name, declared, meta);
      if (issue) issues.push(issue);
    }
  });
  for (const required of REQUIRED_CSV_COLUMNS) {
    if (!index.has(required)) {
      issues.push({
        field: required,
        reason: `the header lacks the required column ${quote(required)} (required: ${REQUIRED_CSV_COLUMNS.join(', ')})`,
      });
    }
  }
  return issues.length > 0 ? { issues } : { header: { names, index, meta }, issues };
}

/** Records a metadata column in `meta`; an issue for a column that is nothing the gateway or gbatch knows. */
function columnIssue(name: string, declared: ReadonlySet<string>, meta: Map<string, string>): RowIssue | undefined {
  if (declared.has(name) && !(REQUIRED_CSV_COLUMNS as readonly string[]).includes(name)) {
    meta.set(name, name);
    return undefined;
  }
  if (name.startsWith(META_PREFIX)) {
    const key = name.slice(META_PREFIX.length);
    if (key.trim() === '')
      return { field: name, reason: `column ${quote(name)} names no metadata key after '${META_PREFIX}'` };
    meta.set(name, key);
    return undefined;
  }
  if (CONVENIENCE_COLUMNS.has(name) || kindsWithField(name).length > 0) return undefined;
  // --meta-columns is a comma-separated list: a name with a comma can only take the prefix.
  const flag = name.includes(',') ? '' : `pass --meta-columns ${quoteArg(name)} or `;
  return {
    field: name,
    reason:
      `column ${quote(name)} is not a request field of the gateway (nor ${[...CONVENIENCE_COLUMNS].join(', ')}), so it would be sent ` +
      `with every row; to keep it in the journal and results.jsonl without sending it, ${flag}name the column ${quote(META_PREFIX + name)}`,
  };
}
