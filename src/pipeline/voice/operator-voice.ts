// The run as `gbatch run` tells it to its operator: the journal, later runs, the commands to type.
import { LockLostError } from '../../journal/index.js';
import type { RunVoice } from './run-voice.js';

export const operatorVoice: RunVoice = {
  item: 'item',
  items: (count) => `${count} item(s)`,
  journal: 'the journal',
  store: 'journal',

  budgetInForce: (_choice, decided) => decided.note,
  deferred: (count, firstId, reason) => `${count} item(s) deferred by --budget; the first (${firstId}) ${reason}`,
  jobCancelled: (cancel, retryCancelled) =>
    `the job was cancelled (${new Date(cancel.at).toISOString()}${cancel.reason ? `: ${cancel.reason}` : ''}): nothing more is sent; ` +
    'pending and deferred items become cancelled; tasks already submitted are still polled, downloaded and billed (the gateway has no cancel)' +
    (retryCancelled ? `; \`${retryCancelled}\` sends the cancelled items again` : ''),

  uncertainNow: (count, how) =>
    `${count} item(s) were mid-submission ${how}: now uncertain (see \`gbatch status\`, decide with \`gbatch resolve\`)`,
  uncertainRow: (what) => `${what}; decide with \`gbatch resolve\``,
  leftPending: (id, attempts) =>
    `item '${id}': gateway still failing after ${attempts} attempts; left pending for a later run`,
  downloadFailed: (id, message) => `download of item '${id}' failed: ${message}; a later run retries it`,
  retryingLeftovers: (count, which, of, ids) =>
    `sending ${count} item(s) an earlier run left failed (refunded) or refused with a transient code again (--retry-failed, ${which} of ${of}): ${ids}`,
  retryingOne: (kind, id, retry, of, why) =>
    `sending ${kind} item '${id}' again (retry ${retry} of ${of}, --retry-failed): ${why}`,
  orphaned: (total, where, byState, ids) =>
    `${total} row(s) of the journal are ${where} (${byState}): not sent; \`gbatch status\` lists them: ${ids}`,
  earlierWitness: 'an earlier run saw ',

  interrupted: (signal) =>
    `interrupted${signal ? ` by ${signal}` : ''}: nothing new was sent after it; unfinished work is left for the next run`,
  // The words of the error the journal's writes throw from then on.
  lockLost: (location) => new LockLostError(location).message,
  unreachable: (head) =>
    `${head}; stopping: nothing more is sent (pending rows stay pending), polls stop, tasks in flight are picked up by the next run`,
  deadlineReached: (at, graceS) =>
    `deadline reached (${at}): no new requests; requests in flight get ${graceS} s, then are cut`,
  deadlineDraining: (at, graceS, drain) =>
    `deadline reached (${at}): no new submissions; submissions in flight get ${graceS} s, then are cut; tasks in flight are still polled and downloaded for up to ${drain} (--drain)`,
  deadlineSummary: (at, cut, drained) => {
    const said =
      cut.kind === 'submissions'
        ? `${cut.count} submission(s) still on the wire were cut after the ${cut.graceS} s grace and are uncertain (gbatch resolve)`
        : cut.kind === 'requests'
          ? `requests still in flight were cut after the ${cut.graceS} s grace; no submission was among them`
          : 'no request had to be cut';
    const tail = drained
      ? '; tasks in flight were polled and downloaded until they ended, within --drain; anything unfinished is left for the next run'
      : '; unfinished work is left for the next run';
    return `deadline reached (${at}): nothing was sent after it; ${said}${tail}`;
  },
};
