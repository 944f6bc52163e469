// Pure: the video tasks' submission-to-success times folded from an event log (seq order), for a journal that keeps
// no summary of them (an older one, read-only): a `finish` after an accept or attach of the same attempt.
import type { EventLogRecord, VideoTaskTimes } from './store.js';

export function foldVideoTaskTimes(events: Iterable<Pick<EventLogRecord, 'itemId' | 'at' | 'event'>>): VideoTaskTimes {
  const attempts = new Map<string, { submittedAt: number; accepted: boolean }>();
  const durations: number[] = [];
  for (const e of events) {
    if (e.event === 'submit') attempts.set(e.itemId, { submittedAt: e.at, accepted: false });
    const attempt = attempts.get(e.itemId);
    if (!attempt) continue;
    if (e.event === 'accept' || e.event === 'attach') attempt.accepted = true;
    if (e.event === 'finish' && attempt.accepted) durations.push(e.at - attempt.submittedAt);
  }
  return medianOf(durations);
}

/** The count and the nearest-rank median. */
export function medianOf(durations: number[]): VideoTaskTimes {
  const sorted = durations.sort((a, b) => a - b);
  return { count: sorted.length, medianMs: sorted.length ? sorted[Math.ceil(sorted.length / 2) - 1]! : null };
}
