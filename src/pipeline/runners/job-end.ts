// How a run enters and leaves its job. At its end, every run first lets its listeners take a last look at
// its money while the journal is open. Among runners sharing a job (PostgreSQL), a run also starts or joins
// the job's session of notices, and at its end learns whether it is the job's last runner to end, the one
// whose notification speaks for the job.
import type { EventEmitter } from 'node:events';
import type { JournalRun } from '../../journal/index.js';
import type { RunEvents } from '../context.js';
import type { RunResult } from '../run-result.js';
import type { RunVoice } from '../voice/run-voice.js';

/** This run joined the job: a new session of notices when no other runner is at work on it. */
export async function joinJobNotices(
  journal: JournalRun,
  events: EventEmitter<RunEvents>,
  voice: RunVoice,
): Promise<void> {
  try {
    if (journal.capabilities.sharedRunners) await journal.notices.begin();
  } catch (err) {
    events.emit(
      'log',
      `could not open the job's notifications in ${voice.journal} (they may be sent twice): ${(err as Error).message}`,
    );
  }
}

/**
 * The run's work is over: listeners hear its final money while the journal is still open (and before a last
 * runner's end clears the job's notices), and the run waits for what they hold.
 */
export async function announceEnding(
  events: EventEmitter<RunEvents>,
  result: Pick<RunResult, 'counts' | 'spend' | 'budgetUsd'>,
): Promise<void> {
  if (events.listenerCount('ending') === 0) return;
  const held: Array<Promise<void>> = [];
  events.emit(
    'ending',
    {
      counts: result.counts,
      spend: result.spend,
      ...(result.budgetUsd !== undefined ? { budgetUsd: result.budgetUsd } : {}),
      pausedUntil: 0,
    },
    (work) => held.push(work),
  );
  await Promise.allSettled(held);
}

/**
 * `lastOfJob`: false when other runners of the job are still at work (one of them reports the job's end);
 * absent on a journal of one runner, or when the journal could not say (then this run reports, to be safe).
 */
export async function jobEnd(
  journal: JournalRun,
  events: EventEmitter<RunEvents>,
  voice: RunVoice,
): Promise<{ lastOfJob?: boolean }> {
  if (!journal.capabilities.sharedRunners) return {};
  try {
    return { lastOfJob: await journal.notices.end() };
  } catch (err) {
    events.emit(
      'log',
      `could not learn from ${voice.journal} whether other runners of the job are still at work: ${(err as Error).message}`,
    );
    return {};
  }
}
