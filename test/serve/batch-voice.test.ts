// A batch's run as serve words it: the client's batch, requests and files; no command it cannot run, no
// flag of `gbatch run`, no journal. The news the operator's line carries stays.
import { describe, expect, it } from 'vitest';
import { budgetInForce, type BudgetChoice } from '../../src/core/job-budget.js';
import type { RunVoice } from '../../src/pipeline/index.js';
import { batchVoice as voice } from '../../src/serve/batch-voice.js';

const AT = '2026-01-02T00:00:00.000Z';
const CLI_SPEAK = /gbatch |--[a-z]|journal|\bitems?\b|later run|earlier run|next run/i;

function said(choice: BudgetChoice): string | undefined {
  return voice.budgetInForce(choice, budgetInForce(choice));
}

/** Every line the voice can say, each message with its parameters filled. */
function everyLine(v: RunVoice): string[] {
  const cancel = { at: Date.UTC(2026, 0, 2), reason: 'the batch was cancelled by its client' };
  return [
    v.items(2),
    v.journal,
    v.store,
    ...[
      { stored: undefined, given: 0.25, lift: false },
      { stored: 0.25, given: 0.25, lift: false },
      { stored: 0.25, given: 0.1, lift: false },
      { stored: 0.25, given: undefined, lift: false },
      { stored: 0.25, given: undefined, lift: true },
    ].map((choice) => v.budgetInForce(choice, budgetInForce(choice))!),
    v.deferred(3, 'c', 'needs up to $1.000000'),
    v.jobCancelled(cancel, 'gbatch retry j --cancelled'),
    v.uncertainNow(2, 'when the last runner stopped'),
    v.uncertainRow('the row is uncertain'),
    v.leftPending('a', 3),
    v.downloadFailed('v', '503'),
    v.retryingLeftovers(2, 'retry 1', 2, "'a', 'b'"),
    v.retryingOne('video', 'clip', 1, 2, 'its task failed and was refunded'),
    v.orphaned(1, "in none of this run's manifests", 'pending 1', 'x'),
    v.earlierWitness,
    v.lockLost('/srv/gbatch/batches.db'),
    v.interrupted('SIGTERM'),
    v.unreachable('gateway unreachable at http://127.0.0.1:9/ (3 refused connections in a row)'),
    v.deadlineReached(AT, 5),
    v.deadlineDraining(AT, 5, '15m'),
    v.deadlineSummary(AT, { kind: 'submissions', count: 1, graceS: 5 }, true),
    v.deadlineSummary(AT, { kind: 'requests', graceS: 5 }, false),
    v.deadlineSummary(AT, { kind: 'none' }, false),
  ];
}

describe('batchVoice', () => {
  it('says no gbatch command, no flag, no journal and no item in any line', () => {
    const lines = everyLine(voice);
    for (const line of lines) expect(line).not.toMatch(CLI_SPEAK);
  });

  it("says the budget as the batch's, all its requests together", () => {
    expect([
      said({ stored: undefined, given: 0.25, lift: false }),
      said({ stored: 0.25, given: 0.25, lift: false }),
      said({ stored: 0.25, given: 0.1, lift: false }),
      said({ stored: undefined, given: undefined, lift: false }),
    ]).toEqual([
      'budget $0.250000 in force for the batch, all its requests together',
      'budget $0.250000 in force for the batch',
      "the batch's budget is now $0.100000 (was $0.250000)",
      undefined,
    ]);
  });

  it("says a client's cancel and the completion window's end in the batch's files", () => {
    expect(voice.jobCancelled({ at: Date.UTC(2026, 0, 2), reason: 'the batch was cancelled by its client' }, 'x')).toBe(
      `cancelled (${AT}: the batch was cancelled by its client): nothing more is sent; ` +
        'requests not sent end batch_cancelled in the error file; tasks already submitted are still polled, ' +
        'downloaded and billed (the gateway has no cancel)',
    );
    expect(voice.deadlineDraining(AT, 5, '15m')).toBe(
      `the completion window ended (${AT}): no new submissions; submissions in flight get 5 s, then are cut; ` +
        'tasks in flight are still polled and downloaded for up to 15m',
    );
    expect(voice.deadlineSummary(AT, { kind: 'submissions', count: 1, graceS: 5 }, true)).toBe(
      `the completion window ended (${AT}): nothing was sent after it; 1 submission(s) still on the wire were cut ` +
        'after the 5 s grace and are uncertain; tasks in flight were polled and downloaded until they ended; ' +
        'what did not finish ends batch_expired in the error file',
    );
  });

  it("says a lost lock without the store's place, which is the server's", () => {
    expect(voice.lockLost('/srv/gbatch/batches.db')).toBe(
      "this run of the batch lost its hold on the batch's store to another runner: it stopped at once and writes " +
        'nothing more; the runner that holds the batch now carries on',
    );
  });

  it('turns advice for an operator into what the server does', () => {
    expect([
      voice.leftPending('a', 3),
      voice.downloadFailed('v', '503'),
      voice.uncertainNow(2, 'when the last runner stopped'),
      voice.uncertainRow("task t1 (request 'v') is unknown to the gateway for this key (404 x3): the row is uncertain"),
      voice.deferred(3, 'c', 'needs up to $1.000000 but $0.010000 of the $0.010000 budget remains'),
      voice.orphaned(1, "in none of this run's manifests", 'pending 1', 'x'),
    ]).toEqual([
      "request 'a': gateway still failing after 3 attempts; left pending: the server tries again",
      "download of request 'v' failed: 503; the server tries again",
      "2 request(s) were mid-submission when the last runner stopped: now uncertain (the batch's error file names them)",
      "task t1 (request 'v') is unknown to the gateway for this key (404 x3): the row is uncertain; the batch's error file names it",
      '3 request(s) held back by the budget; the first (c) needs up to $1.000000 but $0.010000 of the $0.010000 budget remains',
      "1 row(s) of the batch's store are in none of this run's manifests (pending 1): not sent",
    ]);
  });
});
