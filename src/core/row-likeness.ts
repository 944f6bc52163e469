// Which settled rows are "like" a row to be sent: the forecast draws a row's cost from the history of
// rows that share its likeness. Pure.
import { billingResolution } from './models.js';
import { promptBytes, requestedSeconds } from './estimate.js';
import type { ItemKind } from './states.js';

/** What the history keeps of a row to find rows like it later. */
export interface RowLikeness {
  kind: ItemKind;
  model: string;
  /** Video: the resolution asked for (as billing reads it); text: null. */
  resolution: string | null;
  /** Video: seconds asked for; text: null. */
  durationS: number | null;
  /** Text: the prompt's size as a power of two of its bytes (0: up to 1 byte); video: 0. */
  sizeBucket: number;
}

export function rowLikeness(kind: ItemKind, request: Record<string, unknown>): RowLikeness {
  const model = typeof request.model === 'string' ? request.model : '';
  if (kind === 'video')
    return {
      kind,
      model,
      resolution: billingResolution(request.resolution),
      durationS: requestedSeconds(request),
      sizeBucket: 0,
    };
  return { kind, model, resolution: null, durationS: null, sizeBucket: sizeBucket(promptBytes(request)) };
}

/** ceil(log2(bytes)): rows within a factor of two of each other's prompt share a bucket. */
export function sizeBucket(bytes: number): number {
  return bytes <= 1 ? 0 : Math.ceil(Math.log2(bytes));
}

/** The close key (every field) and the loose one (kind, model, resolution): tried in that order. */
export function likenessKeys(row: RowLikeness): { close: string; loose: string } {
  const loose = `${row.kind}\u0000${row.model}\u0000${row.resolution ?? ''}`;
  return { close: `${loose}\u0000${row.durationS ?? ''}\u0000${row.sizeBucket}`, loose };
}
