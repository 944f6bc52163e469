// The PostgreSQL journal's stored functions (src/journal/postgres/functions/) are applied after the schema steps,
// and only when a step is applied: a schema already current keeps the definitions it has. So a changed function
// file comes with a new step (a comment saying what changed is enough), and the digest of the files is recorded
// here for the version that step makes. A recorded line is never changed: the database at that version holds it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  POSTGRES_FUNCTIONS as FUNCTIONS,
  POSTGRES_SCHEMA_VERSION as SCHEMA_VERSION,
} from '../../helpers/journal-raw.js';

/** The schema version, and the sha256 of the function files that version's steps leave applied. */
const FUNCTIONS_AT_VERSION: ReadonlyArray<readonly [number, string]> = [
  [20, '2911a93ac8383bfbee27220b7bc806ce0cc25377d03335d5de3e9c980ba575a6'],
];

function digest(definitions: readonly string[]): string {
  const hash = createHash('sha256');
  for (const definition of definitions) hash.update(definition).update('\0');
  return hash.digest('hex');
}

describe('PostgreSQL stored functions and schema versions', () => {
  it('the function files are the ones recorded for the current schema version (changed: add a step)', () => {
    const [version, recorded] = FUNCTIONS_AT_VERSION.at(-1)!;
    const now = digest(FUNCTIONS);
    if (now !== recorded) {
      expect.fail(
        `src/journal/postgres/functions/ changed (sha256 ${now}): add a schema step, then record [${SCHEMA_VERSION + 1}, '${now}']`,
      );
    }
    expect(version, 'a step was added without its line here').toBe(SCHEMA_VERSION);
  });

  it('records one line per change, in version order', () => {
    const versions = FUNCTIONS_AT_VERSION.map(([version]) => version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    const digests = FUNCTIONS_AT_VERSION.map(([, recorded]) => recorded);
    expect(new Set(digests).size).toBe(digests.length);
  });
});
