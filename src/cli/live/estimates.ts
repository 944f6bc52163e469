// Pure estimates drawn from a snapshot: throughput, time to the end, and the job's projected cost.
import { finishedRows, inFlightRows, type RunSnapshot } from '../../core/run-snapshot.js';

/** Below this much observed time, a rate says more about start-up than about the run. */
const MIN_WINDOW_S = 5;

export interface Eta {
  /** Seconds to the end of the run; null when it cannot be told yet (`why` says what it waits for). */
  seconds: number | null;
  why?: string;
}

/** Rows finished per minute over the snapshot's recent window; null while too little time has passed. */
export function rowsPerMinute(s: RunSnapshot): number | null {
  if (s.recent.window_s < MIN_WINDOW_S) return null;
  return (s.recent.finished / s.recent.window_s) * 60;
}

/**
 * How long a task of age `age` still has, given finished tasks' durations: up to the 90th percentile,
 * past it up to the longest seen, past that a quarter of its age again (a straggler).
 */
function taskRemaining(age: number, d: RunSnapshot['tasks']['durations']): number {
  if (d.p90_s !== null && age < d.p90_s) return d.p90_s - age;
  if (d.max_s !== null && age < d.max_s) return d.max_s - age;
  return Math.max(5, age / 4);
}

/**
 * Time to the end. Text rows go at the observed rate of answers; a video is only done a task's
 * duration after it is sent, so the last video sent adds the 90th percentile of the durations seen
 * (acceptance to success), and tasks in flight add what their ages leave of it. Before any video task
 * finished there is no duration to go by: the ETA is unknown rather than a straight line from the
 * first minute. A 429's pause delays every send.
 */
export function estimateEta(s: RunSnapshot): Eta {
  if (s.phase === 'done') return { seconds: 0 };
  if (s.phase === 'stopping') return { seconds: null, why: 'stopping' };
  const { counts, tasks } = s;
  const toSend = counts.pending + counts.submitting;
  const videos = tasks.to_send + tasks.in_flight;
  if (toSend + videos + counts.succeeded === 0) return { seconds: 0 };
  const pauseLeft = s.paused_until !== null ? Math.max(0, (s.paused_until - s.now) / 1000) : 0;
  let sendTime = 0;
  if (toSend > 0) {
    if (s.recent.window_s < MIN_WINDOW_S || s.recent.sent === 0) return { seconds: null, why: 'measuring the rate' };
    sendTime = pauseLeft + toSend / (s.recent.sent / s.recent.window_s);
  }
  if (videos === 0) return { seconds: sendTime };
  if (tasks.durations.count === 0) {
    return {
      seconds: null,
      why:
        tasks.oldest_age_s !== null
          ? `first video task running for ${Math.round(tasks.oldest_age_s)}s`
          : 'waiting for a first video task',
    };
  }
  const lastSent = tasks.to_send > 0 ? sendTime + (tasks.durations.p90_s ?? 0) : sendTime;
  let inFlight = 0;
  for (const age of [tasks.youngest_age_s, tasks.oldest_age_s]) {
    if (age !== null) inFlight = Math.max(inFlight, taskRemaining(age, tasks.durations));
  }
  // Paused, no poll is answered either: nothing in flight can be seen done before the pause ends.
  return { seconds: Math.max(lastSent, pauseLeft + inFlight) };
}

export interface Projection {
  usd: number;
  /**
   * Actual over estimate of the rows settled so far, per kind; null before any settled (that kind is then projected at
   * its estimate).
   */
  ratios: { text: number | null; video: number | null };
}

/**
 * The job's total cost if the rows still open cost what settled rows of their kind did against their
 * estimate (a chat answer's ratio says nothing about a video's).
 */
export function projectCost(s: RunSnapshot): Projection | null {
  const kinds = s.money.by_kind;
  if (!kinds) return null;
  let usd = 0;
  const ratios = { text: null as number | null, video: null as number | null };
  for (const kind of ['text', 'video'] as const) {
    const m = kinds[kind];
    const ratio = m.settled_estimate_usd > 0 ? m.settled_actual_usd / m.settled_estimate_usd : null;
    ratios[kind] = ratio;
    usd += m.settled_actual_usd + Math.max(0, m.estimate_usd - m.settled_estimate_usd) * (ratio ?? 1);
  }
  return { usd, ratios };
}

/** Rows finished (answered or terminal), in flight, and all of them, for the progress bar. */
export function progressOf(s: RunSnapshot): { finished: number; inFlight: number; total: number } {
  return { finished: finishedRows(s.counts), inFlight: inFlightRows(s.counts), total: s.total };
}
