// One CSV record to a request: typed cells, the prompt and system conveniences, the `body` column, and
// the metadata columns kept beside the request.
import type { ItemKind } from '../core/states.js';
import { convertCell } from './csv-cells.js';
import { CONVENIENCE_COLUMNS, type CsvHeader } from './csv-header.js';
import { isPlainObject } from './jsonl-line.js';
import { kindsWithField, REQUEST_FIELDS } from './request-schemas.js';
import { checkKind, type RowDraft } from './row-assembly.js';
import { quote, type RowIssue } from './types.js';
import { describe } from './validate-request.js';

type Setter = (field: string, value: unknown, column: string) => void;

/** A plain assignment to `__proto__` would replace the prototype and drop the field. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function cellText(header: CsvHeader, cells: readonly string[], name: string): string | undefined {
  const i = header.index.get(name);
  const text = i === undefined ? undefined : cells[i];
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** The id draftFromCsvRecord gives the record, without building the rest of the draft. */
export function csvDraftId(header: CsvHeader, cells: readonly string[]): RowDraft['id'] {
  const value = cellText(header, cells, 'id');
  // A row of the wrong width is reported under its id only when it has one; any other row without
  // one is told that its id is required.
  return value === undefined && cells.length !== header.names.length ? undefined : { value, field: 'id' };
}

export function draftFromCsvRecord(
  header: CsvHeader,
  cells: readonly string[],
  line: number,
  raw: RowDraft['raw'],
): RowDraft {
  const cell = (name: string): string | undefined => cellText(header, cells, name);
  const id = csvDraftId(header, cells);
  if (cells.length !== header.names.length) {
    return {
      line,
      raw,
      ...(id !== undefined ? { id } : {}),
      issues: [{ reason: `bad CSV: the header has ${header.names.length} columns, this row has ${cells.length}` }],
    };
  }
  const { kind, issue: kindIssue } = checkKind(cell('kind')?.trim());
  const issues: RowIssue[] = kindIssue ? [kindIssue] : [];
  const request: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  const set: Setter = (field, value, column) => {
    const earlier = origin.get(field);
    if (earlier !== undefined) {
      issues.push({ field, reason: `is set by both column ${quote(earlier)} and column ${quote(column)}` });
      return;
    }
    setOwn(request, field, value);
    origin.set(field, column);
  };
  let meta: Record<string, unknown> | undefined;
  header.names.forEach((name, i) => {
    const text = cells[i]!;
    if (CONVENIENCE_COLUMNS.has(name) || text.trim() === '') return;
    const metaKey = header.meta.get(name);
    if (metaKey !== undefined) {
      setOwn((meta ??= {}), metaKey, text);
      return;
    }
    if (kind !== undefined && !REQUEST_FIELDS[kind].has(name)) {
      issues.push({
        field: name,
        reason: `is not a ${kind} request field (only ${kindsWithField(name).join(', ')} rows have it): leave the cell empty in ${kind} rows`,
      });
      return;
    }
    const converted = convertCell(name, text, kind);
    if (converted.issue) {
      issues.push(converted.issue);
      origin.set(name, name); // still the column's field: body may not set it too
    } else {
      set(name, converted.value, name);
    }
  });
  if (kind !== undefined) placePrompt(kind, cell('prompt'), cell('system'), set, issues);
  const body = cell('body');
  if (body !== undefined) mergeBody(body, request, origin, issues);
  return {
    line,
    raw,
    id,
    kind,
    request: withSortedKeys(request),
    issues,
    ...(meta !== undefined ? { meta } : {}),
    // A chat row without messages lacks its prompt, in the words of the CSV.
    ...(kind === 'chat' && request.messages === undefined ? { fieldLabels: { messages: 'prompt' } } : {}),
  };
}

/** The same fields with keys in sorted order, so that canonicalJson can use the native serializer. */
function withSortedKeys(request: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(request);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) return request;
  const ordered: Record<string, unknown> = {};
  for (const key of keys.sort()) setOwn(ordered, key, request[key]);
  return ordered;
}

function placePrompt(
  kind: ItemKind,
  prompt: string | undefined,
  system: string | undefined,
  set: Setter,
  issues: RowIssue[],
): void {
  switch (kind) {
    case 'chat':
      if (prompt !== undefined) {
        // Keys in sorted order (as withSortedKeys): the request's canonical JSON is then JSON.stringify's.
        const user = { content: prompt, role: 'user' };
        set('messages', system === undefined ? [user] : [{ content: system, role: 'system' }, user], 'prompt');
      } else if (system !== undefined) {
        issues.push({ field: 'system', reason: 'needs a prompt: it becomes the system message before it' });
      }
      return;
    case 'responses':
      if (prompt !== undefined) set('input', prompt, 'prompt');
      if (system !== undefined) set('instructions', system, 'system');
      return;
    case 'video':
      if (prompt !== undefined) set('prompt', prompt, 'prompt');
      if (system !== undefined) issues.push({ field: 'system', reason: 'applies only to chat and responses rows' });
      return;
  }
}

function mergeBody(
  text: string,
  request: Record<string, unknown>,
  origin: Map<string, string>,
  issues: RowIssue[],
): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    issues.push({ field: 'body', reason: `must hold a JSON object: ${(err as Error).message}` });
    return;
  }
  if (!isPlainObject(body)) {
    issues.push({ field: 'body', reason: `must hold a JSON object, got ${describe(body)}` });
    return;
  }
  for (const [key, value] of Object.entries(body)) {
    const column = key === 'id' || key === 'kind' ? key : origin.get(key);
    if (column !== undefined) issues.push({ field: key, reason: `is set by both column ${quote(column)} and body` });
    else setOwn(request, key, value);
  }
}
