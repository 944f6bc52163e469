// The pipeline's light face: what a command reads of a run's rules (its exit codes and their meaning, the
// results file's lines, the note on an answer the journal refused, the --if-running default) without
// loading the run. index.ts is the face for running one; this one loads no lane, no gateway client and no
// journal adapter, so that `gbatch --version`, `status` or `report` start without them.
export { exitCodeFor, needsOperatorDecision } from './exit-code.js';
export { exitMeaning } from './exit-meaning.js';
export { DEFAULT_IF_RUNNING_TIMEOUT_S, type IfRunning } from './runners/overlap.js';
export { RunSkippedError } from '../core/run-skipped-error.js';
export { ANSWER_UNRECORDED, answerNote, type AnswerNote } from './ending/unrecorded.js';
export { resultsPath } from './results/results-file.js';
export { refusal, resultLineFromRow } from './results/results-line.js';
