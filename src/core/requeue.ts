// Pure: which rows `gbatch retry` sends again. Only a definite end (failed, rejected) is requeued, and
// never a row whose request may have reached the gateway: an uncertain one, or one abandoned while uncertain.
import { commandNaming } from './job-address.js';
import { quoteArg } from './shell-text.js';
import type { ItemKind, ItemState } from './states.js';

export interface RequeueCandidate {
  id: string;
  state: ItemState;
  kind?: ItemKind;
  /** The row is `failed` because an operator abandoned it while it was `uncertain`. */
  abandonedWhileUncertain: boolean;
  /** Where the row comes from (file:line), for the advice on an invalid row. */
  source?: string;
  /** In none of the job's manifests (src/core/orphans.ts): a run does not send it unless the operator names it. */
  orphaned?: boolean;
}

export interface RequeueRequest {
  failed: boolean;
  rejected: boolean;
  /** Rows cancelled by `gbatch cancel` (the operator's way back; it lifts the job's cancellation too). */
  cancelled?: boolean;
  /** Ids the operator named, in the order given. */
  ids: readonly string[];
}

export type RequeuePlan =
  { ok: true; requeue: string[]; leftOut: string[]; adopt?: string[] } | { ok: false; refusal: string };

export interface RequeueContext {
  /** How the advice names the journal in a command: a job name, or `--state <file>`. */
  journalArg: string;
  /** The journal file, for "no such item". */
  file: string;
}

/**
 * The rows to requeue: every `failed` (with `failed`) and `rejected` (with `rejected`) row of `bulk`,
 * except failed rows abandoned while uncertain (left out and listed), plus each named id, each of
 * which must be failed or rejected and not abandoned while uncertain, else the whole plan is refused
 * with one line saying why and what to do instead. `named` holds the row of each named id, if any.
 */
export function planRequeue(
  request: RequeueRequest,
  named: ReadonlyMap<string, RequeueCandidate>,
  bulk: Iterable<RequeueCandidate>,
  context: RequeueContext,
): RequeuePlan {
  if (!request.failed && !request.rejected && !request.cancelled && request.ids.length === 0) {
    return { ok: false, refusal: 'Expected --failed, --rejected, --cancelled or item ids: which rows to send again' };
  }
  const refusals: string[] = [];
  for (const id of request.ids) {
    const why = refusalFor(id, named.get(id), context);
    if (why) refusals.push(why);
  }
  if (refusals.length > 0) {
    const more = refusals.length > 1 ? ` (and ${refusals.length - 1} more id(s) refused)` : '';
    return { ok: false, refusal: `${refusals[0]}${more}; nothing was requeued` };
  }
  const requeue: string[] = [];
  const leftOut: string[] = [];
  const seen = new Set<string>();
  for (const row of bulk) {
    const wanted =
      (row.state === 'failed' && request.failed) ||
      (row.state === 'rejected' && request.rejected) ||
      (row.state === 'cancelled' && request.cancelled === true);
    if (!wanted || seen.has(row.id)) continue;
    seen.add(row.id);
    if (row.abandonedWhileUncertain) leftOut.push(row.id);
    else requeue.push(row.id);
  }
  const adopt: string[] = [];
  for (const id of request.ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    // An orphaned row waiting unsent needs no requeue: naming it is the operator's word to send it.
    if (isUnsentOrphan(named.get(id))) adopt.push(id);
    else requeue.push(id);
  }
  return { ok: true, requeue, leftOut, ...(adopt.length > 0 ? { adopt } : {}) };
}

function isUnsentOrphan(row: RequeueCandidate | undefined): boolean {
  return row?.orphaned === true && (row.state === 'pending' || row.state === 'deferred');
}

function refusalFor(
  id: string,
  row: RequeueCandidate | undefined,
  { journalArg, file }: RequeueContext,
): string | undefined {
  const shown = quoteArg(id);
  if (!row) return `${file}: no item ${shown}`;
  if (isUnsentOrphan(row)) return undefined;
  if (row.state === 'failed' && row.abandonedWhileUncertain) {
    return (
      `item ${shown} was abandoned while uncertain: its request may have reached the gateway, so retry does not send it` +
      ` again (a duplicate may be billed); only \`gbatch resolve\` decides rows whose request may have been kept`
    );
  }
  switch (row.state) {
    case 'failed':
    case 'rejected':
    case 'cancelled':
      return undefined;
    case 'uncertain':
      return (
        `item ${shown} is uncertain: its request may have reached the gateway; decide with` +
        (row.kind === 'video' || row.kind === undefined
          ? ` \`${commandNaming(journalArg, 'resolve', { id }, '--task-id', '<T>')}\` (or --resubmit / --abandon), not retry`
          : ` \`${commandNaming(journalArg, 'resolve', { id }, '--resubmit')}\` (or --abandon), not retry`)
      );
    case 'invalid':
      return `item ${shown} is invalid (never sent): fix its manifest row${row.source ? ` (${row.source})` : ''} and run again`;
    case 'pending':
      return `item ${shown} is pending: the next \`gbatch run\` sends it; nothing to retry`;
    case 'deferred':
      return `item ${shown} is deferred (held back by the budget or the balance): the next \`gbatch run\` sends it; nothing to retry`;
    case 'downloaded':
      return `item ${shown} is downloaded: it finished; nothing to retry`;
    case 'submitting':
    case 'submitted':
    case 'running':
    case 'succeeded':
      return `item ${shown} is ${row.state}: it is still in progress; \`gbatch run\` finishes it`;
  }
}
