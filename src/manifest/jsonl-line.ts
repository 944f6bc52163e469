// One JSONL line in either form of the contract: OpenAI Batch (`custom_id`, `method`, `url`, `body`)
// or flat (`id`, `kind`, request fields).
import type { ItemKind } from '../core/states.js';
import { checkKind, type RowDraft } from './row-assembly.js';
import type { RowIssue } from './types.js';
import { describe } from './validate-request.js';

export const BATCH_URLS: Readonly<Record<string, ItemKind>> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/video/generations': 'video',
};
const BATCH_KEYS: ReadonlySet<string> = new Set(['custom_id', 'method', 'url', 'body']);

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
  if (!isPlainObject(value)) return { line, raw: text, issues: [{ reason: `a line must be a JSON object, got ${describe(value)}` }] };
  return 'custom_id' in value || 'body' in value ? batchDraft(value, text, line) : flatDraft(value, text, line);
}

function batchDraft(line: Record<string, unknown>, raw: string, lineNo: number): RowDraft {
  const issues: RowIssue[] = [];
  if (line.method !== 'POST') {
    issues.push({ field: 'method', reason: line.method === undefined ? 'is required and must be POST' : `must be POST, got ${describe(line.method)}` });
  }
  let kind: ItemKind | undefined;
  if (line.url === undefined) issues.push({ field: 'url', reason: 'is required' });
  else if (typeof line.url === 'string' && Object.hasOwn(BATCH_URLS, line.url)) kind = BATCH_URLS[line.url];
  else issues.push({ field: 'url', reason: `must be one of ${Object.keys(BATCH_URLS).join(', ')}, got ${describe(line.url)}` });
  for (const key of Object.keys(line)) {
    if (!BATCH_KEYS.has(key)) issues.push({ field: key, reason: 'is not part of an OpenAI Batch line (request fields go in body)' });
  }
  let request: Record<string, unknown> | undefined;
  if (isPlainObject(line.body)) request = line.body;
  else issues.push({ field: 'body', reason: line.body === undefined ? 'is required' : `must be a JSON object, got ${describe(line.body)}` });
  return { line: lineNo, raw, id: { value: line.custom_id, field: 'custom_id' }, kind, request, issues };
}

function flatDraft(line: Record<string, unknown>, raw: string, lineNo: number): RowDraft {
  const { id, kind: kindValue, ...request } = line;
  const { kind, issue } = checkKind(kindValue);
  return { line: lineNo, raw, id: { value: id, field: 'id' }, kind, request, issues: issue ? [issue] : [] };
}
