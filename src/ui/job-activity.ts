// When a job first sent and last changed, for the jobs list's "last activity" and a job's duration.
import type { JournalReports } from '../journal/index.js';
import { timingSummary } from '../report/timing-summary.js';

export interface JobActivity {
  firstAt: number | null;
  lastAt: number | null;
}

export async function jobActivity(journal: JournalReports): Promise<JobActivity> {
  const { timeline } = await timingSummary(journal);
  return { firstAt: timeline.startedAt ?? null, lastAt: timeline.endedAt ?? null };
}
