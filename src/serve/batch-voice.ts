// A batch's run as serve tells it: a client of the Batch API knows its batch, the batch's requests and its
// output and error files, and can run no gbatch command; the server decides what an operator would.
import { formatUsd } from '../core/money.js';
import type { DeadlineCut, RunVoice } from '../pipeline/index.js';

const ENDS_EXPIRED = 'what did not finish ends batch_expired in the error file';

function cutWords(cut: DeadlineCut): string {
  if (cut.kind === 'submissions')
    return `${cut.count} submission(s) still on the wire were cut after the ${cut.graceS} s grace and are uncertain`;
  if (cut.kind === 'requests')
    return `requests still in flight were cut after the ${cut.graceS} s grace; no submission was among them`;
  return 'no request had to be cut';
}

export const batchVoice: RunVoice = {
  item: 'request',
  items: (count) => `${count} request(s)`,
  journal: "the batch's store",
  store: 'store',

  budgetInForce: ({ stored, given, lift }) => {
    if (lift) return stored === undefined ? undefined : `the batch has no budget now (was ${formatUsd(stored)})`;
    if (given === undefined)
      return stored === undefined ? undefined : `budget ${formatUsd(stored)} in force for the batch`;
    if (stored === undefined) return `budget ${formatUsd(given)} in force for the batch, all its requests together`;
    if (stored === given) return `budget ${formatUsd(given)} in force for the batch`;
    return `the batch's budget is now ${formatUsd(given)} (was ${formatUsd(stored)})`;
  },
  deferred: (count, firstId, reason) => `${count} request(s) held back by the budget; the first (${firstId}) ${reason}`,
  // The cancel came from the client (its batches.cancel): sending the cancelled rows again is no option here.
  jobCancelled: (cancel) =>
    `cancelled (${new Date(cancel.at).toISOString()}${cancel.reason ? `: ${cancel.reason}` : ''}): nothing more is sent; ` +
    'requests not sent end batch_cancelled in the error file; ' +
    'tasks already submitted are still polled, downloaded and billed (the gateway has no cancel)',

  // The server ends a batch's uncertain requests in its error file; no operator decides them for a client.
  uncertainNow: (count, how) =>
    `${count} request(s) were mid-submission ${how}: now uncertain (the batch's error file names them)`,
  uncertainRow: (what) => `${what}; the batch's error file names it`,
  leftPending: (id, attempts) =>
    `request '${id}': gateway still failing after ${attempts} attempts; left pending: the server tries again`,
  downloadFailed: (id, message) => `download of request '${id}' failed: ${message}; the server tries again`,
  retryingLeftovers: (count, which, of, ids) =>
    `sending ${count} request(s) left failed (refunded) or refused with a transient code again (the server's retry policy, ${which} of ${of}): ${ids}`,
  retryingOne: (kind, id, retry, of, why) =>
    `sending ${kind} request '${id}' again (retry ${retry} of ${of}, the server's retry policy): ${why}`,
  orphaned: (total, where, byState) => `${total} row(s) of the batch's store are ${where} (${byState}): not sent`,
  earlierWitness: 'an earlier try of the batch saw ',

  // A server that stops leaves the batch in progress: the next server's run of it carries on.
  interrupted: (signal) =>
    `interrupted${signal ? ` by ${signal}` : ''}: nothing new was sent after it; the server's next try sends what did not finish`,
  // The store's place is the server's to know, not the client's.
  lockLost: () =>
    `this run of the batch lost its hold on the batch's store to another runner: it stopped at once and writes nothing more; the runner that holds the batch now carries on`,
  unreachable: (head) =>
    `${head}; stopping: nothing more is sent (pending rows stay pending), polls stop, tasks in flight are picked up by the server's next try`,
  // A batch's deadline is its completion window's end (expires_at).
  deadlineReached: (at, graceS) =>
    `the completion window ended (${at}): no new requests; requests in flight get ${graceS} s, then are cut`,
  deadlineDraining: (at, graceS, drain) =>
    `the completion window ended (${at}): no new submissions; submissions in flight get ${graceS} s, then are cut; tasks in flight are still polled and downloaded for up to ${drain}`,
  deadlineSummary: (at, cut, drained) =>
    `the completion window ended (${at}): nothing was sent after it; ${cutWords(cut)}` +
    `${drained ? '; tasks in flight were polled and downloaded until they ended' : ''}; ${ENDS_EXPIRED}`,
};
