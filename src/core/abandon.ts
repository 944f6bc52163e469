// Pure: what an operator's `resolve --abandon [--not-billed]` does to a row. A row abandoned while
// uncertain may have been billed (its request may have reached the gateway), so its bound stays booked
// against the budget until the operator says it was not billed; only then is its reservation released.
import { commandNaming } from './job-address.js';
import type { ItemEvent, ItemState } from './states.js';

/** The `type` of the error an abandoned uncertain row carries: its bound is still booked. */
export const ABANDONED_BOOKED = 'abandoned_uncertain';
/** The `type` once the operator said it was not billed: nothing is booked for it. */
export const ABANDONED_NOT_BILLED = 'abandoned_not_billed';

export const BOOKED_MESSAGE =
  'abandoned by the operator while uncertain: it may have been billed, so its bound stays booked against the budget';
export const NOT_BILLED_MESSAGE =
  'abandoned by the operator while uncertain; not billed (the operator checked): its reservation is released';

export interface AbandonRow {
  id: string;
  state: ItemState;
  reservedUsd: number;
  /** The row is `failed` because an operator abandoned it while it was `uncertain`. */
  abandonedWhileUncertain: boolean;
}

export type AbandonPlan =
  | {
      kind: 'change';
      event: Extract<ItemEvent, 'abandon' | 'unreserve'>;
      /** Undefined: the reservation stays as it is (booked). */
      reservedUsd: 0 | undefined;
      error: { type?: string; message: string };
      /** What the command prints once it is written. */
      said: string;
    }
  | { kind: 'nothing'; said: string }
  | { kind: 'refused'; why: string };

/** `journalArg` names the journal in a suggested command (a job name, or `--state <file>`). */
export function planAbandon(row: AbandonRow, notBilled: boolean, journalArg: string): AbandonPlan {
  const shown = `'${row.id}'`;
  const release = commandNaming(journalArg, 'resolve', { id: row.id }, '--abandon', '--not-billed');
  switch (row.state) {
    case 'uncertain':
      return notBilled
        ? {
            kind: 'change',
            event: 'abandon',
            reservedUsd: 0,
            error: { type: ABANDONED_NOT_BILLED, message: NOT_BILLED_MESSAGE },
            said: `item ${shown}: abandoned (now failed) as not billed; its reservation is released`,
          }
        : {
            kind: 'change',
            event: 'abandon',
            reservedUsd: undefined,
            error: { type: ABANDONED_BOOKED, message: BOOKED_MESSAGE },
            said:
              `item ${shown}: abandoned (now failed); it may have been billed, so its bound stays booked against the budget;` +
              ` once the gateway's dashboard shows it was not billed: ${release}`,
          };
    case 'pending':
    case 'deferred':
      if (notBilled)
        return {
          kind: 'refused',
          why: `item ${shown} is ${row.state}: it was never sent, so nothing can have been billed; use --abandon alone`,
        };
      return {
        kind: 'change',
        event: 'abandon',
        reservedUsd: 0,
        error: { message: `abandoned by the operator (was ${row.state})` },
        said: `item ${shown}: abandoned (now failed); nothing was booked for it`,
      };
    case 'failed':
      if (row.abandonedWhileUncertain) {
        if (!notBilled) {
          return {
            kind: 'refused',
            why:
              `item ${shown} is already abandoned` +
              (row.reservedUsd > 0
                ? `; its bound stays booked until the gateway shows it was not billed: ${release}`
                : ''),
          };
        }
        if (row.reservedUsd <= 0)
          return { kind: 'nothing', said: `item ${shown}: nothing is booked for it; nothing changed` };
        return {
          kind: 'change',
          event: 'unreserve',
          reservedUsd: 0,
          error: { type: ABANDONED_NOT_BILLED, message: NOT_BILLED_MESSAGE },
          said: `item ${shown}: not billed; its reservation is released`,
        };
      }
      return {
        kind: 'refused',
        why: `item ${shown} is failed: only uncertain, deferred or pending items can be abandoned`,
      };
    default:
      return {
        kind: 'refused',
        why: `item ${shown} is ${row.state}: only uncertain, deferred or pending items can be abandoned`,
      };
  }
}
