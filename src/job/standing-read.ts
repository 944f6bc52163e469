// The facts of a job's standing (src/core/standing.ts) read from its journal: counts, live runners, the cancel,
// the last run, the orphaned rows that wait, the uncertain rows' ids and a final serve batch's mark. `run` passes
// its own ending as the last run, which it has not yet recorded when it prints.
import { finalBatchOf } from '../core/final-batch.js';
import { countsForExit } from '../core/orphans.js';
import type { JobAddress } from '../core/job-address.js';
import { standingOf, type RunRecord, type Standing } from '../core/standing.js';
import type { JournalQueries } from '../journal/index.js';
import { resendable } from './advice.js';

/** Uncertain ids read: one row is named in its commands, several get --all-uncertain. */
const UNCERTAIN_IDS = 2;
/** Orphaned rows read for the one `gbatch retry <ids>` command. */
const ORPHANS_READ = 20;

export async function readStanding(
  journal: JournalQueries,
  address: JobAddress,
  lastRun: RunRecord | undefined,
  /** A run reading its own ending: its own runner is no live one. */
  self?: { pid: number; host: string },
  /** Failed and rejected rows the retry policy sends again on its own: no one's to retry. */
  autoRetried?: { failed: number; rejected: number },
): Promise<Standing> {
  const orphans = await journal.orphans(ORPHANS_READ);
  const abandoned = await journal.abandonedWhileUncertain(
    orphans.rows.filter((r) => r.state === 'failed').map((r) => r.id),
  );
  const counts = countsForExit(await journal.counts(), orphans.counts);
  const uncertain = counts.uncertain > 0 ? await journal.list(['uncertain'], UNCERTAIN_IDS) : [];
  const finalBatch = finalBatchOf((await journal.getJob())?.options);
  return standingOf({
    counts,
    liveRunners: (await journal.runners()).filter(
      (r) => r.liveness.alive && !(self && r.pid === self.pid && r.host === self.host),
    ).length,
    cancelled: (await journal.jobCancel()) !== undefined,
    lastRun,
    orphans: {
      waiting: orphans.total,
      resendable: resendable(orphans.rows.map((r) => ({ ...r, abandonedWhileUncertain: abandoned.has(r.id) }))),
    },
    uncertainIds: uncertain.map((i) => i.id),
    ...(autoRetried ? { autoRetried } : {}),
    ...(finalBatch ? { finalBatch } : {}),
    address,
  });
}

/** The standing as a run's last lines and `--quiet` print it: its sentence, then each need with its commands. */
export function standingLines(standing: Standing): string[] {
  const lines = [standing.resume ? `${standing.sentence} Carry on: ${standing.resume}` : standing.sentence];
  for (const need of standing.needs) {
    lines.push(need.line);
    for (const command of need.commands) lines.push(`  ${command}`);
  }
  return lines;
}
