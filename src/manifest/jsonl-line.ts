// One JSONL line in either form of the contract: OpenAI Batch (`custom_id`, `method`, `url`, `body`)
// or flat (`id`, `kind`, request fields); either may carry a `meta` object, kept but never sent.
import type { ItemKind } from '../core/states.js';
import { REQUEST_FIELDS } from './request-schemas.js';
import { checkKind, type RowDraft } from './row-assembly.js';
import type { RowIssue } from './types.js';
import { describe } from './validate-request.js';

export const BATCH_URLS: Readonly<Record<string, ItemKind>> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/video/generations': 'video',
};
const BATCH_KEYS: ReadonlySet<string> = new Set(['custom_id', 'method', 'url', 'body', 'meta']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function draftFromJsonLine(text: string, line: number): RowDraft {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { line, raw: text, issues: [{ reason: `malformed JSON: ${(err as Error).message}` }] };
  }
  if (!isPlainObject(value))
    return { line, raw: text, issues: [{ reason: `a line must be a JSON object, got ${describe(value)}` }] };
  return 'custom_id' in value || 'body' in value ? batchDraft(value, text, line) : flatDraft(value, text, line);
}

function batchDraft(line: Record<string, unknown>, raw: string, lineNo: number): RowDraft {
  const issues: RowIssue[] = [];
  if (line.method !== 'POST') {
    issues.push({
      field: 'method',
      reason: line.method === undefined ? 'is required and must be POST' : `must be POST, got ${describe(line.method)}`,
    });
  }
  let kind: ItemKind | undefined;
  if (line.url === undefined) issues.push({ field: 'url', reason: 'is required' });
  else if (typeof line.url === 'string' && Object.hasOwn(BATCH_URLS, line.url)) kind = BATCH_URLS[line.url];
  else
    issues.push({
      field: 'url',
      reason: `must be one of ${Object.keys(BATCH_URLS).join(', ')}, got ${describe(line.url)}`,
    });
  for (const key of Object.keys(line)) {
    if (!BATCH_KEYS.has(key))
      issues.push({ field: key, reason: 'is not part of an OpenAI Batch line (request fields go in body)' });
  }
  let request: Record<string, unknown> | undefined;
  if (isPlainObject(line.body)) request = line.body;
  else
    issues.push({
      field: 'body',
      reason: line.body === undefined ? 'is required' : `must be a JSON object, got ${describe(line.body)}`,
    });
  const meta = metaOf(line.meta, issues);
  return {
    line: lineNo,
    raw,
    id: { value: line.custom_id, field: 'custom_id' },
    kind,
    request,
    issues,
    ...(meta ? { meta } : {}),
  };
}

function flatDraft(line: Record<string, unknown>, raw: string, lineNo: number): RowDraft {
  const { id, kind: kindValue, meta: metaValue, ...request } = line;
  const { kind, issue } = checkKind(kindValue);
  const issues = issue ? [issue] : [];
  // The flat form's keys are the request's: one the spec does not define would leave with it.
  if (kind !== undefined) {
    for (const key of Object.keys(request)) {
      if (!REQUEST_FIELDS[kind].has(key)) {
        issues.push({
          field: key,
          reason:
            `is not a ${kind} request field of the gateway; to keep it without sending it, put it under "meta", ` +
            'or write the line in the OpenAI Batch form, whose body is sent as written',
        });
      }
    }
  }
  const meta = metaOf(metaValue, issues);
  return { line: lineNo, raw, id: { value: id, field: 'id' }, kind, request, issues, ...(meta ? { meta } : {}) };
}

/** A line's `meta`: any JSON object, kept in the journal and results.jsonl and never sent. */
function metaOf(value: unknown, issues: RowIssue[]): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (isPlainObject(value)) return value;
  issues.push({
    field: 'meta',
    reason: `must be a JSON object (metadata kept beside the request, never sent), got ${describe(value)}`,
  });
  return undefined;
}
