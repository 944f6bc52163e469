// The header row of a CSV manifest: without its required columns no row can be understood.
import { quote, type RowIssue } from './types.js';

export const REQUIRED_CSV_COLUMNS = ['id', 'kind', 'model', 'prompt'] as const;

export interface CsvHeader {
  /** Column names, trimmed, in file order. */
  names: readonly string[];
  /** Column index by name. */
  index: ReadonlyMap<string, number>;
}

export function readCsvHeader(cells: readonly string[]): { header?: CsvHeader; issues: RowIssue[] } {
  const names = cells.map((c) => c.trim());
  const index = new Map<string, number>();
  const issues: RowIssue[] = [];
  names.forEach((name, i) => {
    if (name === '') issues.push({ reason: `column ${i + 1} of the header has no name` });
    else if (index.has(name)) issues.push({ field: name, reason: `column ${quote(name)} appears twice in the header` });
    else index.set(name, i);
  });
  for (const required of REQUIRED_CSV_COLUMNS) {
    if (!index.has(required)) {
      issues.push({
        field: required,
        reason: `the header lacks the required column ${quote(required)} (required: ${REQUIRED_CSV_COLUMNS.join(', ')})`,
      });
    }
  }
  return issues.length > 0 ? { issues } : { header: { names, index }, issues };
}
