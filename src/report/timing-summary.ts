// What `status` shows of the job's times: when it started, how long it has run, how long video tasks take.
import type { JournalReports } from '../journal/index.js';
import { duration } from './duration.js';
import type { Timeline } from './timeline.js';

export interface TimingJson {
  started_at: string | null;
  /** The last transition (a live job moves it on). */
  last_event_at: string | null;
  elapsed_ms: number | null;
  video_tasks_succeeded: number;
  /** Submission to success, of the video tasks that succeeded so far. */
  video_task_median_ms: number | null;
}

/** From the journal's summaries: its first submission and last activity, and its video tasks' times. */
export async function timingSummary(
  journal: Pick<JournalReports, 'activity' | 'videoTaskTimes'>,
): Promise<{ timeline: Pick<Timeline, 'startedAt' | 'endedAt'>; json: TimingJson }> {
  const { firstAt, lastAt } = await journal.activity();
  const video = await journal.videoTaskTimes();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    timeline: { startedAt: firstAt ?? undefined, endedAt: firstAt === null ? undefined : (lastAt ?? firstAt) },
    json: {
      started_at: iso(firstAt),
      last_event_at: iso(firstAt === null ? null : lastAt),
      elapsed_ms: firstAt === null || lastAt === null ? null : lastAt - firstAt,
      video_tasks_succeeded: video.count,
      video_task_median_ms: video.medianMs,
    },
  };
}

export function timingLine(t: TimingJson): string {
  const video =
    t.video_tasks_succeeded > 0
      ? `; video tasks: median ${duration(t.video_task_median_ms)} from submission to success (${t.video_tasks_succeeded} done)`
      : '';
  return `Running time ${duration(t.elapsed_ms)}: first submission ${t.started_at}, last change ${t.last_event_at}${video}`;
}
