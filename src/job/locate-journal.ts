// Where a journal file is: --state, else a job's default state/<name>.db, else the only one in state/ (see
// job-journal.ts for a job's own).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { UsageError } from './options.js';

export function locateJournal(stateFlag: string | undefined, job: string | undefined): string {
  if (stateFlag) {
    if (!existsSync(stateFlag)) throw new UsageError(`${stateFlag}: no such journal`);
    return stateFlag;
  }
  if (job) {
    const candidate = defaultJournalFor(job);
    if (!existsSync(candidate))
      throw new UsageError(`${candidate}: no journal for ${job} yet (has it run?); or pass --state`);
    return candidate;
  }
  const found = existsSync('state') ? readdirSync('state').filter((f) => f.endsWith('.db')) : [];
  if (found.length === 1) return join('state', found[0]!);
  if (found.length === 0) throw new UsageError('No journal found in state/; pass --state <file.db>');
  throw new UsageError(`Several journals in state/ (${found.join(', ')}); pass --state <file.db>`);
}

/**
 * The journal a job name, job file or manifest stands for, as `run` names it: `state/<name>.db`, where
 * a job file's own `name` wins over its file name.
 */
export function defaultJournalFor(job: string): string {
  return join('state', `${jobNameFor(job)}.db`);
}

/** The job a name, job file or manifest stands for, as `run` names it. */
export function jobNameFor(job: string): string {
  const own = extname(job).toLowerCase() === '.json' ? jobFileName(job) : undefined;
  return own ?? basename(job, extname(job)).replace(/[^A-Za-z0-9._-]/g, '_');
}

function jobFileName(file: string): string | undefined {
  let json: { name?: unknown };
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as typeof json;
  } catch {
    return undefined; // not a readable job file: named by its file name
  }
  return typeof json?.name === 'string' && /^[A-Za-z0-9._-]+$/.test(json.name) ? json.name : undefined;
}

/**
 * For commands whose other arguments are item ids (`resolve`, `retry`): with --state every positional
 * is an id; without it the first positional is the job (none: the only journal in state/).
 */
export function journalAndIds(
  stateFlag: string | undefined,
  positionals: readonly string[],
): { file: string; ids: string[] } {
  if (stateFlag) return { file: locateJournal(stateFlag, undefined), ids: [...positionals] };
  const [job, ...ids] = positionals;
  try {
    return { file: locateJournal(undefined, job), ids };
  } catch (err) {
    if (!(err instanceof UsageError) || job === undefined) throw err;
    throw new UsageError(`${err.message} (the first argument names the job, then the item ids: \`<job> <item-id>\`)`);
  }
}
