// One read of a job's live figures for its feed (live-feeds.ts): the summary every time, the whole page
// (its problems grouped by cause) only when the summary moved.
import type { JournalJob } from '../journal/index.js';
import type { JobDirectory } from './job-directory.js';
import { jobPage, jobSummary, summaryKey } from './job-view.js';
import type { LiveRead } from './live-feeds.js';
import { liveFragments } from './pages/job-page.js';

export function liveFiguresOf(directory: JobDirectory): (job: JournalJob) => Promise<LiveRead> {
  return async (job) => {
    const journal = await directory.queries(job);
    const summary = await jobSummary(job, journal);
    return {
      key: summaryKey(summary),
      frame: async () => JSON.stringify(liveFragments(await jobPage(job, journal, summary))),
    };
  };
}
