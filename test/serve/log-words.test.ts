// The runner's lines as serve logs them of a batch: the CLI's journal, runs and commands become the Batch
// API's batches, requests and files; news the CLI wording carries stays.
import { describe, expect, it } from 'vitest';
import { budgetInForce } from '../../src/core/job-budget.js';
import { cancelLine } from '../../src/pipeline/stops/cancel-watch.js';
import { inBatchApiWords } from '../../src/serve/log-words.js';

const CLI_SPEAK = /journal|later run|earlier run|next run|gbatch |item/i;

describe('inBatchApiWords', () => {
  it("says the runner's budget and cancel lines in the batch's terms", () => {
    const first = budgetInForce({ stored: undefined, given: 0.25, lift: false }).note!;
    const again = budgetInForce({ stored: 0.25, given: 0.25, lift: false }).note!;
    const changed = budgetInForce({ stored: 0.25, given: 0.1, lift: false }).note!;
    expect([first, again, changed].map(inBatchApiWords)).toEqual([
      'budget $0.250000 in force for the batch, all its requests together',
      'budget $0.250000 in force for the batch',
      "the batch's budget is now $0.100000 (was $0.250000)",
    ]);
    expect(
      inBatchApiWords(
        cancelLine({ at: Date.UTC(2026, 0, 2), reason: 'the batch was cancelled by its client' }, undefined),
      ),
    ).toBe(
      'cancelled (2026-01-02T00:00:00.000Z: the batch was cancelled by its client): nothing more is sent; ' +
        'requests not sent end batch_cancelled in the error file; tasks already submitted are still polled, ' +
        'downloaded and billed (the gateway has no cancel)',
    );
  });

  it('turns advice for an operator into what the server does, and leaves no CLI word', () => {
    const lines = [
      "item 'a': gateway still failing after 3 attempts; left pending for a later run",
      "download of item 'v' failed: 503; a later run retries it",
      '2 item(s) were mid-submission when the last runner stopped: now uncertain (see `gbatch status`, decide with `gbatch resolve`)',
      "task t1 (item 'v') is unknown to the gateway for this key (404 x3): the row is uncertain; decide with `gbatch resolve`",
      'sending 2 item(s) an earlier run left failed (refunded) or refused with a transient code again (--retry-failed, 1 of 2): a, b',
      '3 item(s) deferred by --budget; the first (c) needs up to $1.000000 but $0.010000 of the $0.010000 budget remains',
      'could not record how this run ended in the journal: disk full',
      "1 row(s) of the journal are in none of this run's manifests (pending 1): not sent; `gbatch status` lists them: x",
      'deadline reached (2026-01-02T00:00:00.000Z): nothing was sent after it; 1 submission(s) still on the wire were cut after the 5 s grace and are uncertain (gbatch resolve); tasks in flight were polled and downloaded until they ended, within --drain; anything unfinished is left for the next run',
      'the rows wait: the next gbatch run sends each',
      'deadline reached (2026-01-02T00:00:00.000Z): no new submissions; tasks in flight are still polled and downloaded for up to 15m (--drain)',
    ];
    const said = lines.map(inBatchApiWords);
    for (const line of said) expect(line).not.toMatch(CLI_SPEAK);
    expect(said.at(-1)).toBe(
      'the completion window ended (2026-01-02T00:00:00.000Z): no new submissions; tasks in flight are still polled and downloaded for up to 15m',
    );
    expect(said.slice(-3, -1)).toEqual([
      'the completion window ended (2026-01-02T00:00:00.000Z): nothing was sent after it; 1 submission(s) still on the wire were cut after the 5 s grace and are uncertain; tasks in flight were polled and downloaded until they ended; what did not finish ends batch_expired in the error file',
      "the rows wait: the server's next try sends each",
    ]);
    expect(said.slice(0, 6)).toEqual([
      "request 'a': gateway still failing after 3 attempts; left pending: the server tries again",
      "download of request 'v' failed: 503; the server tries again",
      "2 request(s) were mid-submission when the last runner stopped: now uncertain (the batch's error file names them)",
      "task t1 (request 'v') is unknown to the gateway for this key (404 x3): the row is uncertain; the batch's error file names it",
      'sending 2 request(s) left failed (refunded) or refused with a transient code again (--retry-failed, 1 of 2): a, b',
      '3 request(s) held back by the budget; the first (c) needs up to $1.000000 but $0.010000 of the $0.010000 budget remains',
    ]);
  });

  it('leaves a line in the Batch API words as it is', () => {
    const line = "sending video request 'clip' again (retry 1 of 1, --retry-failed): its task failed and was refunded";
    expect(inBatchApiWords(line)).toBe(line);
  });
});
