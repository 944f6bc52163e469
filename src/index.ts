// gbatch as a library: `import { runJob, planJob, openJournal } from 'gbatch'`. The CLI is built on
// these same functions (src/cli/commands/run.ts and plan.ts); docs/library.md shows them in use.
export { runJob, type RunJobOptions, type RunJobResult } from './api/run-job.js';
export { planJob, type PlanJobOptions, type PlanResult, type PlanRow, type PlanGroup } from './api/plan-job.js';
export { openJournal, type OpenJournalOptions, type JobJournal, type LastRun } from './api/open-journal.js';
export type { JobOptions } from './api/job-options.js';
export type { Progress, RunResult } from './pipeline/index.js';
export type { SendPolicy as NotifyPolicy } from './notify/policy.js';
export type { ItemKind, ItemState } from './core/states.js';
export { ITEM_STATES } from './core/states.js';
// Types from their own modules, not journal/index.js: that one reaches the SQLite adapter, whose types
// name better-sqlite3's (a dev dependency's types a consumer does not have).
export type { Item, ItemError } from './journal/item.js';
export type { JobRecord } from './journal/change.js';
export type { RunRecord } from './journal/run-record.js';
export type { ReportHeader, ReportTotals, ReportGroup } from './report/model.js';
// Exit codes: EXIT_CODE by name, EXIT_CODE_TABLE's rows (code, name, meaning, what to do), EXIT_CODES per command.
// The error classes below name their code as `EXIT_CODE.<name>` (test/core/exit-codes.test.ts holds them to it).
export { EXIT_CODE, EXIT_CODE_TABLE, EXIT_PRECEDENCE, type ExitCodeRow, type ExitName } from './core/exit-codes.js';
export { EXIT_CODES } from './core/command-exit-codes.js';
/** Bad options, a missing or invalid job file, a bad notify URL: nothing was sent (the CLI's `EXIT_CODE.usage`, 2). */
export { UsageError } from './job/options.js';
/**
 * JournalBusyError: another live runner holds the job's journal; nothing was done (the CLI's `EXIT_CODE.busy`, 73).
 * LockLostError: this run lost the journal's lock and stopped writing (the CLI's `EXIT_CODE.inFlight`, 75).
 */

/**
 * A path that cannot be used (the journal's folder, the output folder, a manifest): nothing was sent
 * (`EXIT_CODE.usage`, 2).
 */
export { ConfigError } from './core/config-error.js';
export { JournalBusyError, LockLostError } from './journal/errors.js';
