// Plain-text tables for terminals: right-aligned numbers, no dependencies. Every cell is printable
// (core/printable.ts): a control character in an id or a message can neither break the layout nor
// drive the terminal.
import { printable } from '../core/printable.js';

export type Cell = string | number | null | undefined;

export function renderTable(
  headers: readonly string[],
  rows: readonly Cell[][],
  numeric: ReadonlySet<number> = new Set(),
): string {
  const text = rows.map((row) => row.map((c) => (c === null || c === undefined ? '-' : printable(String(c)))));
  const widths = headers.map(printable).map((h, i) => Math.max(h.length, ...text.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers.map(printable)), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)].join('\n');
}

export function usd(value: number | null | undefined, digits = 6): string {
  if (value === null || value === undefined) return '-';
  return `${value < 0 ? '-' : ''}$${Math.abs(value).toFixed(digits)}`;
}
