// Manifest writers: CSV with a header row and JSONL, as a user would prepare them.
import { appendFileSync, writeFileSync } from 'node:fs';

export type CsvRow = Record<string, string | number | boolean | undefined>;

function csvCell(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvText(columns: readonly string[], rows: readonly CsvRow[]): string {
  return [columns.join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))].join('\n') + '\n';
}

export function writeCsv(file: string, columns: readonly string[], rows: readonly CsvRow[]): string {
  writeFileSync(file, csvText(columns, rows));
  return file;
}

/** Objects are written as JSON; strings are written as they are (to write malformed lines). */
export function writeJsonl(file: string, lines: ReadonlyArray<unknown>): string {
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

export function appendJsonl(file: string, lines: ReadonlyArray<unknown>): void {
  appendFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
}

/** A flat-form video row (JSONL). */
export function videoRow(id: string, prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, kind: 'video', model: 'video-mini', prompt, resolution: '480p', duration: 2, ...extra };
}

/** A flat-form chat row (JSONL). */
export function chatRow(id: string, prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    kind: 'chat',
    model: 'chat-small',
    messages: [{ role: 'user', content: prompt }],
    max_tokens: 16,
    ...extra,
  };
}
