// The last step shared by every format: id checks, request validation, and the entry to yield.
import type { PricingTable } from '../core/pricing.js';
import { ITEM_KINDS, type ItemKind } from '../core/states.js';
import { canonicalJson } from './content-hash.js';
import { describe, validateRequest } from './validate-request.js';
import { quote, truncateRaw, type ManifestEntry, type ManifestRow, type RowIssue } from './types.js';

export { ITEM_KINDS };

export { IdRegistry } from '../core/id-registry.js';

/** A row as a format reader understood it, before validation. */
export interface RowDraft {
  line: number;
  /** The row's text as written, or a way to get it (read only when the row is reported). */
  raw: string | (() => string);
  /** The id as written and where (`id` or `custom_id`); undefined when the row is too broken to have one. */
  id?: { value: unknown; field: string };
  kind?: ItemKind;
  /** Undefined when the row is too broken to hold a request. */
  request?: Record<string, unknown>;
  issues: RowIssue[];
  /** Request fields the user wrote under another name (a CSV `prompt` becomes chat `messages`). */
  fieldLabels?: Readonly<Record<string, string>>;
  /** Metadata kept beside the request, never sent. */
  meta?: Record<string, unknown>;
}

export function checkId(value: unknown, field: string): { id?: string; issue?: RowIssue } {
  if (value === undefined) return { issue: { field, reason: 'is required' } };
  if (typeof value !== 'string') return { issue: { field, reason: `must be a string, got ${describe(value)}` } };
  if (value.trim() === '') return { issue: { field, reason: 'must not be blank' } };
  return { id: value };
}

export function checkKind(value: unknown): { kind?: ItemKind; issue?: RowIssue } {
  if (value === undefined) return { issue: { field: 'kind', reason: 'is required' } };
  if (typeof value === 'string' && (ITEM_KINDS as readonly string[]).includes(value))
    return { kind: value as ItemKind };
  return { issue: { field: 'kind', reason: `must be one of ${ITEM_KINDS.join(', ')}, got ${describe(value)}` } };
}

/**
 * The only part of judging a row that depends on the rows before it: the line its id was first seen
 * on. An IdRegistry, or (for a row judged in another thread than the registry's) its answer as given.
 */
export interface IdLedger {
  register(id: string, line: number): number | undefined;
}

/** The row's id as checked: what the ledger is asked about. */
export function checkedId(draft: Pick<RowDraft, 'id'>): { id?: string; issue?: RowIssue } {
  return draft.id ? checkId(draft.id.value, draft.id.field) : {};
}

export function finishRow(file: string, draft: RowDraft, ids: IdLedger, pricing: PricingTable): ManifestEntry {
  const { id, issue: idIssue } = checkedId(draft);
  const issues: RowIssue[] = idIssue ? [idIssue] : [];
  if (id !== undefined) {
    const first = ids.register(id, draft.line);
    if (first !== undefined)
      issues.push({ field: draft.id?.field, reason: `duplicate id ${quote(id)} (first on line ${first})` });
  }
  issues.push(...draft.issues);
  if (draft.kind !== undefined && draft.request !== undefined) {
    const labels = draft.fieldLabels ?? {};
    for (const issue of validateRequest(draft.kind, draft.request, pricing)) {
      const label = issue.field !== undefined && Object.hasOwn(labels, issue.field) ? labels[issue.field] : issue.field;
      issues.push({ ...issue, field: label });
    }
  }
  if (issues.length === 0 && draft.kind !== undefined && draft.request !== undefined && id !== undefined) {
    const request = draft.request;
    return {
      ok: true,
      row: rowOf(file, draft.line, id, draft.kind, request, draft.meta),
    };
  }
  if (issues.length === 0) issues.push({ reason: 'the row holds no request' });
  const errors = issues.map((i) => ({
    file,
    line: draft.line,
    ...(id !== undefined ? { id } : {}),
    ...(i.field !== undefined ? { field: i.field } : {}),
    reason: i.reason,
  }));
  return {
    ok: false,
    file,
    line: draft.line,
    ...(id !== undefined ? { id } : {}),
    raw: truncateRaw(typeof draft.raw === 'string' ? draft.raw : draft.raw()),
    errors,
  };
}

function rowOf(
  file: string,
  line: number,
  id: string,
  kind: ItemKind,
  request: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
): ManifestRow {
  const row: ManifestRow = {
    file,
    line,
    id,
    kind,
    model: request.model as string,
    request,
    requestJson: canonicalJson(request),
  };
  if (meta !== undefined) row.metaJson = JSON.stringify(meta);
  return row;
}
