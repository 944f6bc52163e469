// The pipeline's face: what the layers above may use of a run. Everything else in src/pipeline is its own
// business (lanes, stops, monitor, runners, endings) and may move without touching a caller; the layer rule
// `pipeline-entry` in .dependency-cruiser.cjs refuses an import past this file (or terms.ts, its light face).
export * from './terms.js';
export { runJob, type RunConfig, type RunResult } from './runner.js';
export type { Progress, RunEvents, RunSettings } from './context.js';
export { StartRefused } from './start-refused.js';
// Shared by the runs of one process (`gbatch serve`): one --concurrency and one --rpm for them all.
export { FairSendSlots, type SendSlots } from './pacing/send-slots.js';
export { requestPacers, type RequestPacers } from './pacing/request-pacers.js';
// What an operator's or a server's decision writes the way a run would.
export { cancelRows } from './stops/cancel-rows.js';
// `plan`: what a run would do against the journal.
export { PlanAgainstJournal } from './plan-journal.js';
export { unpricedHeldRows } from './lanes/held-row-prices.js';
// What a run says to whom: the operator's words (the default) or a server's own.
export type { DeadlineCut, RunVoice } from './voice/run-voice.js';
