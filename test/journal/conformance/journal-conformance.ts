// ONE set of expectations for every adapter of the journal interface, one file per interface method (methods/):
// each adapter's test file calls journalConformance with its harness. When the adapters differ, one of them is wrong.
import { describe } from 'vitest';
import type { Harness, UseHarness } from './harness.js';
import { openConformance } from './methods/open.js';
import { capabilitiesConformance } from './methods/capabilities.js';
import { coordinationConformance } from './methods/coordination.js';
import { noticesConformance } from './methods/notices.js';
import { noteUnrecordedConformance } from './methods/note-unrecorded.js';
import { recoverInterruptedConformance } from './methods/recover-interrupted.js';
import { saveJobConformance } from './methods/save-job.js';
import { runnersConformance } from './methods/runners.js';
import { beginIngestConformance } from './methods/begin-ingest.js';
import { orphanUnreadConformance } from './methods/orphan-unread.js';
import { manifestRecordsConformance } from './methods/manifest-records.js';
import { priorsConformance } from './methods/priors.js';
import { applyTransitionsConformance } from './methods/apply-transitions.js';
import { carriedBookingConformance } from './methods/carried-booking.js';
import { budgetGuardConformance } from './methods/budget-guard.js';
import { markStoredConformance } from './methods/mark-stored.js';
import { annotateConformance } from './methods/annotate.js';
import { fenceConformance } from './methods/fence.js';
import { countsConformance } from './methods/counts.js';
import { countsByKindConformance } from './methods/counts-by-kind.js';
import { iterateConformance } from './methods/iterate.js';
import { eventLogPageConformance } from './methods/event-log-page.js';
import { lastSubmitTimesConformance } from './methods/last-submit-times.js';
import { taskIdHoldersConformance } from './methods/task-id-holders.js';
import { decideAndApplyConformance } from './methods/decide-and-apply.js';
import { resultRowsConformance } from './methods/result-rows.js';
import { firstOpenSeqConformance } from './methods/first-open-seq.js';
import { runsConformance } from './methods/runs.js';
import { reportSumsConformance } from './methods/report-sums.js';
import { modelGroupsConformance } from './methods/model-groups.js';
import { setJobCancelConformance } from './methods/set-job-cancel.js';
import { orphansConformance } from './methods/orphans.js';
import { adoptConformance } from './methods/adopt.js';
import { forgetConformance } from './methods/forget.js';
import { membershipConformance } from './methods/membership.js';
import { lostAndRescueConformance } from './methods/lost-and-rescue.js';
import { summariesConformance } from './methods/summaries.js';
import { rowPageConformance } from './methods/row-page.js';
import { rowFacetsConformance } from './methods/row-facets.js';
import { activityConformance } from './methods/activity.js';
import { retryAllowanceConformance } from './methods/retry-allowance.js';
import { driftsConformance } from './methods/drifts.js';
import { settledCostsConformance } from './methods/settled-costs.js';
import { snapshotConformance } from './methods/snapshot.js';

const METHODS: ReadonlyArray<(label: string, harness: Harness) => void> = [
  openConformance,
  capabilitiesConformance,
  saveJobConformance,
  runnersConformance,
  beginIngestConformance,
  orphanUnreadConformance,
  manifestRecordsConformance,
  priorsConformance,
  applyTransitionsConformance,
  carriedBookingConformance,
  budgetGuardConformance,
  markStoredConformance,
  annotateConformance,
  retryAllowanceConformance,
  fenceConformance,
  countsConformance,
  countsByKindConformance,
  iterateConformance,
  eventLogPageConformance,
  lastSubmitTimesConformance,
  taskIdHoldersConformance,
  decideAndApplyConformance,
  resultRowsConformance,
  firstOpenSeqConformance,
  runsConformance,
  reportSumsConformance,
  modelGroupsConformance,
  setJobCancelConformance,
  orphansConformance,
  adoptConformance,
  forgetConformance,
  membershipConformance,
  recoverInterruptedConformance,
  coordinationConformance,
  driftsConformance,
  settledCostsConformance,
  snapshotConformance,
  noticesConformance,
  noteUnrecordedConformance,
  lostAndRescueConformance,
  summariesConformance,
  rowPageConformance,
  rowFacetsConformance,
  activityConformance,
];

export function journalConformance(label: string, useHarness: UseHarness): void {
  describe.skipIf(useHarness.available ? !useHarness.available() : false)(`journal conformance: ${label}`, () => {
    const harness = useHarness();
    for (const method of METHODS) method(label, harness);
  });
}
