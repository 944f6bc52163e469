// What `status` shows of the job's times: when it started, how long it has run, how long video tasks take.
import { eventLog, type JournalQueries } from '../journal/index.js';
import { duration } from './duration.js';
import { buildTimeline, quantile, type Timeline } from './timeline.js';

export interface TimingJson {
  started_at: string | null;
  /** The last transition (a live job moves it on). */
  last_event_at: string | null;
  elapsed_ms: number | null;
  video_tasks_succeeded: number;
  /** Submission to success, of the video tasks that succeeded so far. */
  video_task_median_ms: number | null;
}

export async function timingSummary(
  journal: Pick<JournalQueries, 'eventLogPage'>,
): Promise<{ timeline: Timeline; json: TimingJson }> {
  const timeline = await buildTimeline(eventLog(journal));
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    timeline,
    json: {
      started_at: iso(timeline.startedAt),
      last_event_at: iso(timeline.endedAt),
      elapsed_ms: timeline.startedAt === undefined ? null : timeline.endedAt! - timeline.startedAt,
      video_tasks_succeeded: timeline.videoDurationsMs.length,
      video_task_median_ms: quantile(timeline.videoDurationsMs, 0.5) ?? null,
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
