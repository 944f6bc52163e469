// Which journal `status`, `report` and `resolve` read: --state, else the job's default, else the only one in state/.
import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { UsageError } from './options.js';

export function locateJournal(stateFlag: string | undefined, job: string | undefined): string {
  if (stateFlag) {
    if (!existsSync(stateFlag)) throw new UsageError(`${stateFlag}: no such journal`);
    return stateFlag;
  }
  if (job) {
    const candidate = join('state', `${basename(job, extname(job))}.db`);
    if (!existsSync(candidate)) throw new UsageError(`${candidate}: no journal for ${job} yet (has it run?); or pass --state`);
    return candidate;
  }
  const found = existsSync('state') ? readdirSync('state').filter((f) => f.endsWith('.db')) : [];
  if (found.length === 1) return join('state', found[0]!);
  if (found.length === 0) throw new UsageError('No journal found in state/; pass --state <file.db>');
  throw new UsageError(`Several journals in state/ (${found.join(', ')}); pass --state <file.db>`);
}
