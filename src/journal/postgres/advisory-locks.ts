// The advisory locks of a job. Keys are (hash of schema and purpose, job id), so jobs, and databases
// laid out in separate schemas (tests), do not wait on one another.

export type LockPurpose = 'write' | 'ingest' | 'membership';

/** The first key of a job's lock of `purpose` (the second is the job id), as SQL. */
export function lockKeySql(purpose: LockPurpose): string {
  return key(purpose);
}

function key(purpose: LockPurpose): string {
  return `hashtext(current_schema() || ':gbatch:${purpose}')`;
}

/** Transitions share the job's write lock; decideAndApply takes it alone (what it read stays as read). */
export function writeLockSql(jobParam: string, mode: 'shared' | 'exclusive'): string {
  return `pg_advisory_xact_lock${mode === 'shared' ? '_shared' : ''}(${key('write')}, (${jobParam})::int)`;
}

/** Ingests of one job one at a time; membership changes one at a time. */
export function exclusiveLockSql(purpose: LockPurpose, jobParam: string): string {
  return `pg_advisory_xact_lock(${key(purpose)}, (${jobParam})::int)`;
}

/** The schema's migration lock: N runners connecting at once migrate once. */
export const MIGRATION_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':gbatch:migrate'))`;
