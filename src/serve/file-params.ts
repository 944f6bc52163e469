// What the Files API takes from a client, checked as OpenAI's reference states it: the purposes of an upload,
// its `expires_after`, and the list's `purpose`, `order`, `limit` and `after`.
import { printable } from '../core/printable.js';
import { ApiFailure, apiError } from './openai-error.js';

export const UPLOAD_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;
export const EXPIRES_AFTER_MIN_S = 3600;
export const EXPIRES_AFTER_MAX_S = 2_592_000;
export const FILES_PAGE_MAX = 10_000;

const bad = (message: string, param: string): ApiFailure => new ApiFailure(apiError(400, message, { param }));
const shown = (value: string): string => `'${printable(value.slice(0, 40))}'`;

export function uploadPurpose(purpose: string | undefined): string {
  if (purpose === undefined) throw bad("Missing required parameter: 'purpose'", 'purpose');
  if (!(UPLOAD_PURPOSES as readonly string[]).includes(purpose))
    throw bad(`Expected purpose to be one of ${UPLOAD_PURPOSES.join(', ')}, got ${shown(purpose)}`, 'purpose');
  return purpose;
}

/** `expires_after[anchor]` and `[seconds]` as the form sends them: the seconds, or undefined when absent. */
export function expiresAfterSeconds(
  anchor: string | undefined,
  seconds: string | undefined,
  name = 'expires_after',
): number | undefined {
  if (anchor === undefined && seconds === undefined) return undefined;
  if (anchor !== 'created_at')
    throw bad(
      `Expected ${name}[anchor] to be 'created_at', got ${anchor === undefined ? 'none' : shown(anchor)}`,
      `${name}.anchor`,
    );
  const value = seconds === undefined ? NaN : Number(seconds);
  if (!/^\d+$/.test(seconds ?? '') || value < EXPIRES_AFTER_MIN_S || value > EXPIRES_AFTER_MAX_S)
    throw bad(
      `Expected ${name}[seconds] to be an integer from ${EXPIRES_AFTER_MIN_S} to ${EXPIRES_AFTER_MAX_S}`,
      `${name}.seconds`,
    );
  return value;
}

export interface FileListQuery {
  limit: number;
  order: 'asc' | 'desc';
  after: string | undefined;
  purpose: string | undefined;
}

/** The list's query: `limit` 1 to 10,000 (10,000 when absent), `order` asc or desc (desc when absent). */
export function fileListQuery(query: Record<string, string | undefined>): FileListQuery {
  const { limit, order, after, purpose } = query;
  const count = limit === undefined ? FILES_PAGE_MAX : Number(limit);
  if (!Number.isInteger(count) || count < 1 || count > FILES_PAGE_MAX)
    throw bad(`Expected limit to be an integer from 1 to ${FILES_PAGE_MAX}`, 'limit');
  if (order !== undefined && order !== 'asc' && order !== 'desc')
    throw bad(`Expected order to be 'asc' or 'desc', got ${shown(order)}`, 'order');
  return { limit: count, order: order ?? 'desc', after, purpose };
}
