// The operator's voice says every line exactly as `gbatch run` has always logged it: scripts and people
// read these lines, so each is pinned here word for word.
import { describe, expect, it } from 'vitest';
import { budgetInForce, type BudgetChoice } from '../../../src/core/job-budget.js';
import { operatorVoice as voice } from '../../../src/pipeline/voice/operator-voice.js';

const AT = '2026-01-02T00:00:00.000Z';

describe('operatorVoice', () => {
  it('names rows and their store as the CLI does', () => {
    expect([voice.item, voice.items(3), voice.journal, voice.store]).toEqual([
      'item',
      '3 item(s)',
      'the journal',
      'journal',
    ]);
  });

  it("says the budget in force as budgetInForce's note", () => {
    const choices: BudgetChoice[] = [
      { stored: undefined, given: 0.25, lift: false },
      { stored: 0.25, given: 0.25, lift: false },
      { stored: 0.25, given: 0.1, lift: false },
      { stored: 0.25, given: undefined, lift: false },
      { stored: 0.25, given: undefined, lift: true },
    ];
    expect(choices.map((choice) => voice.budgetInForce(choice, budgetInForce(choice)))).toEqual([
      'budget $0.250000 in force; it is cumulative for this journal and kept by later runs',
      'budget $0.250000 in force (cumulative for this journal)',
      'budget changed: $0.250000 -> $0.100000 (cumulative for this journal)',
      'budget $0.250000 in force, kept from earlier runs of this journal (cumulative; --budget X replaces it, --no-budget lifts it)',
      'budget lifted (--no-budget): was $0.250000; this job now has no budget',
    ]);
  });

  it('says deferrals, the cancel and uncertain rows with the commands that decide them', () => {
    expect(voice.deferred(3, 'c', 'needs up to $1.000000')).toBe(
      '3 item(s) deferred by --budget; the first (c) needs up to $1.000000',
    );
    const cancel = { at: Date.UTC(2026, 0, 2), reason: 'enough' };
    expect(voice.jobCancelled(cancel, undefined)).toBe(
      `the job was cancelled (${AT}: enough): nothing more is sent; pending and deferred items become cancelled; ` +
        'tasks already submitted are still polled, downloaded and billed (the gateway has no cancel)',
    );
    expect(voice.jobCancelled({ at: cancel.at, reason: '' }, 'gbatch retry j --cancelled')).toBe(
      `the job was cancelled (${AT}): nothing more is sent; pending and deferred items become cancelled; ` +
        'tasks already submitted are still polled, downloaded and billed (the gateway has no cancel); ' +
        '`gbatch retry j --cancelled` sends the cancelled items again',
    );
    expect(voice.uncertainNow(2, 'when the last runner stopped')).toBe(
      '2 item(s) were mid-submission when the last runner stopped: now uncertain (see `gbatch status`, decide with `gbatch resolve`)',
    );
    expect(voice.uncertainRow('the row is uncertain')).toBe('the row is uncertain; decide with `gbatch resolve`');
  });

  it('leaves retries and orphans to later runs and names the flags that govern them', () => {
    expect(voice.leftPending('a', 3)).toBe(
      "item 'a': gateway still failing after 3 attempts; left pending for a later run",
    );
    expect(voice.downloadFailed('v', '503')).toBe("download of item 'v' failed: 503; a later run retries it");
    expect(voice.retryingLeftovers(2, 'retry 1', 2, "'a', 'b'")).toBe(
      "sending 2 item(s) an earlier run left failed (refunded) or refused with a transient code again (--retry-failed, retry 1 of 2): 'a', 'b'",
    );
    expect(voice.retryingOne('video', 'clip', 1, 2, 'its task failed and was refunded')).toBe(
      "sending video item 'clip' again (retry 1 of 2, --retry-failed): its task failed and was refunded",
    );
    expect(voice.orphaned(1, "in none of this run's manifests", 'pending 1', 'x')).toBe(
      "1 row(s) of the journal are in none of this run's manifests (pending 1): not sent; `gbatch status` lists them: x",
    );
    expect(voice.earlierWitness).toBe('an earlier run saw ');
  });

  it('says a lost lock in the words of the error the journal throws from then on', () => {
    expect(voice.lockLost('/w/job.db')).toBe(
      'this run lost its lock on /w/job.db (another runner took the journal over, or the lock was removed): it ' +
        "stopped at once and writes nothing more; the journal's current runner carries on",
    );
  });

  it('says the stops: interrupt, a dead gateway, the deadline with and without a drain', () => {
    expect(voice.interrupted('SIGINT')).toBe(
      'interrupted by SIGINT: nothing new was sent after it; unfinished work is left for the next run',
    );
    expect(voice.interrupted(undefined)).toBe(
      'interrupted: nothing new was sent after it; unfinished work is left for the next run',
    );
    expect(voice.unreachable('gateway unreachable at http://127.0.0.1:9/ (3 refused connections in a row)')).toBe(
      'gateway unreachable at http://127.0.0.1:9/ (3 refused connections in a row); stopping: nothing more is sent ' +
        '(pending rows stay pending), polls stop, tasks in flight are picked up by the next run',
    );
    expect(voice.deadlineReached(AT, 5)).toBe(
      `deadline reached (${AT}): no new requests; requests in flight get 5 s, then are cut`,
    );
    expect(voice.deadlineDraining(AT, 5, '15m')).toBe(
      `deadline reached (${AT}): no new submissions; submissions in flight get 5 s, then are cut; ` +
        'tasks in flight are still polled and downloaded for up to 15m (--drain)',
    );
    expect(voice.deadlineSummary(AT, { kind: 'submissions', count: 1, graceS: 5 }, true)).toBe(
      `deadline reached (${AT}): nothing was sent after it; 1 submission(s) still on the wire were cut after the 5 s grace ` +
        'and are uncertain (gbatch resolve); tasks in flight were polled and downloaded until they ended, within --drain; ' +
        'anything unfinished is left for the next run',
    );
    expect(voice.deadlineSummary(AT, { kind: 'requests', graceS: 5 }, false)).toBe(
      `deadline reached (${AT}): nothing was sent after it; requests still in flight were cut after the 5 s grace; ` +
        'no submission was among them; unfinished work is left for the next run',
    );
    expect(voice.deadlineSummary(AT, { kind: 'none' }, false)).toBe(
      `deadline reached (${AT}): nothing was sent after it; no request had to be cut; unfinished work is left for the next run`,
    );
  });
});
