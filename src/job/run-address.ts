// How the commands suggested after a run name its job: as the operator started it (the job file or manifest),
// with the journal's flag when that alone would not find it; a database URL never with its password.
import type { JobAddress } from '../core/job-address.js';
import { commandLocation } from '../journal/database-url.js';
import { isDatabaseUrl } from '../journal/open-store.js';
import { startedJobAddress } from './advice.js';
import type { ResolvedJob } from './job.js';

export function runAddressOf(job: ResolvedJob): JobAddress {
  return startedJobAddress(
    job.source,
    commandLocation(job.statePath),
    isDatabaseUrl(job.statePath) ? { fromEnv: job.journalFromEnv } : undefined,
    job.journalMoved,
  );
}
