// Brings the manifests into the journal in one transaction: all new rows, or (when refused) none.
import {
  conflictProblem,
  skippedChangeLine,
  type IngestConflict,
  type JournalRun,
  type JobTotals,
} from '../journal/index.js';
import type { PricingTable } from '../core/pricing.js';
import type { InvalidEntry } from './scan-manifests.js';
import { fingerprint, manifestPrints, unchangedRows, type Fingerprint } from './manifest-fingerprint.js';
import { readRows } from './read-rows.js';

export interface IngestOutcome {
  ok: boolean;
  rows: number;
  inserted: number;
  unchanged: number;
  replaced: number;
  invalid: InvalidEntry[];
  invalidCount: number;
  /** Rows changed under an id the journal holds, which refused the ingest (empty under --skip-changed). */
  conflicts: IngestConflict[];
  /** Such rows skipped (--skip-changed): the ingest went on, their journal rows kept as they were and withheld. */
  skippedChanged: IngestConflict[];
  /** Human-readable reasons the ingest was refused (empty when ok). */
  problems: string[];
  /**
   * The job's rows by state and its spend as the ingest's commit left them, when known without a read (see
   * IngestWriter).
   */
  totals?: JobTotals;
}

/** Skipped changed rows named one by one at the start of a run; `gbatch plan` lists them all. */
const SHOWN_SKIPPED = 50;

/** The outcome when every manifest is one the journal already holds as it is: nothing read. */
function alreadyIngested(rows: number): IngestOutcome {
  return {
    ok: true,
    rows,
    inserted: 0,
    unchanged: rows,
    replaced: 0,
    invalid: [],
    invalidCount: 0,
    conflicts: [],
    skippedChanged: [],
    problems: [],
  };
}

export async function ingestManifests(
  journal: JournalRun,
  files: readonly string[],
  pricing: PricingTable,
  skipInvalid: boolean,
  say?: (line: string) => void,
  metaColumns: readonly string[] = [],
  skipChanged = false,
): Promise<IngestOutcome> {
  const read = await Promise.all(files.map((file) => fingerprint(file).catch(() => undefined)));
  // Every manifest's fingerprint, or none: a manifest that could not be read whole is judged row by row.
  const prints = read.every((p): p is Fingerprint => p !== undefined) ? read : undefined;
  const known = prints ? await unchangedRows(journal, prints) : undefined;
  if (known !== undefined) {
    return alreadyIngested(known);
  }
  const session = await journal.beginIngest(say ? { say } : {});
  // Another runner of the job may have ingested the same manifests while this one waited for the ingest
  // lock: looked at again under it, they are known, and nothing needs reading.
  const ingestedMeanwhile = prints ? await unchangedRows(journal, prints) : undefined;
  if (ingestedMeanwhile !== undefined) {
    await session.rollback();
    return alreadyIngested(ingestedMeanwhile);
  }
  const { rows, invalid, invalidCount, rowsByPath } = await readRows(session, files, pricing, skipInvalid, metaColumns);
  const summary = await session.settle();
  const problems: string[] = [];
  if (invalidCount > 0 && !skipInvalid)
    problems.push(`${invalidCount} invalid row(s); fix them or pass --skip-invalid`);
  const skippedChanged = skipChanged ? summary.conflicts : [];
  const conflicts = skipChanged ? [] : summary.conflicts;
  for (const c of conflicts) problems.push(conflictProblem(c));
  const ok = problems.length === 0;
  let totals: JobTotals | undefined;
  if (ok) {
    for (const c of skippedChanged.slice(0, SHOWN_SKIPPED)) say?.(skippedChangeLine(c));
    if (skippedChanged.length > SHOWN_SKIPPED)
      say?.(
        `... and ${skippedChanged.length - SHOWN_SKIPPED} more changed row(s) skipped: \`gbatch plan\` lists them all`,
      );
    // The manifests of a run are the job's wanted rows: the journal's other rows are orphaned, not sent;
    // so are the rows a skipped changed row stands for (the journal's version is not what the manifest wants).
    await session.orphanUnread(skippedChanged.map((c) => c.id));
    // Only a manifest read whole and accepted is remembered (with --skip-invalid its invalid rows are in the
    // journal); the records of the ingest before go, so a later run skips the read only for this same set.
    // A manifest with skipped changed rows is read again by every run: each is judged (and listed) anew,
    // and a run without --skip-changed refuses it.
    await session.recordManifests(prints && skippedChanged.length === 0 ? manifestPrints(prints, rowsByPath) : []);
    await session.commit();
    totals = session.committedTotals();
  } else {
    await session.rollback();
  }
  return {
    ok,
    rows,
    inserted: summary.inserted,
    unchanged: summary.unchanged,
    replaced: summary.replaced,
    invalid,
    invalidCount,
    conflicts,
    skippedChanged,
    problems,
    ...(totals ? { totals } : {}),
  };
}
