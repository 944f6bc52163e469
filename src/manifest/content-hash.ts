// A row's identity for "same id, different content" checks: independent of key order and formatting.
import { hash } from 'node:crypto';
import type { ItemKind } from '../core/states.js';

/** `"key":` texts; manifests repeat a small set of keys on every row. Bounded against odd inputs. */
const keyTexts = new Map<string, string>();
const KEY_TEXT_CACHE_LIMIT = 1000;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < KEY_TEXT_CACHE_LIMIT) keyTexts.set(key, text);
  }
  return text;
}

/**
 * True when JSON.stringify already writes `value` canonically: plain data whose keys enumerate in
 * sorted order at every depth (integer-like keys enumerate numerically, so "10" before "9" fails here).
 */
function inCanonicalOrder(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!inCanonicalOrder(item)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
    if (!inCanonicalOrder(record[keys[i]!])) return false;
  }
  return true;
}

/** JSON text with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  // Rows built with sorted keys (CSV rows are) take the native serializer: same text, far less work.
  if (typeof value === 'object' && value !== null && inCanonicalOrder(value)) return JSON.stringify(value);
  return sortedJson(value);
}

function sortedJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + sortedJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += (first ? '' : ',') + keyText(key) + sortedJson(v);
    first = false;
  }
  return `${out}}`;
}

export function contentHash(kind: ItemKind, request: Record<string, unknown>): string {
  return hashCanonicalRequest(kind, canonicalJson(request));
}

/** The same hash from a request's canonical JSON text, so a caller that keeps the text need not build it twice. */
export function hashCanonicalRequest(kind: ItemKind, requestJson: string): string {
  return hash('sha256', `{"kind":${JSON.stringify(kind)},"request":${requestJson}}`, 'hex');
}
