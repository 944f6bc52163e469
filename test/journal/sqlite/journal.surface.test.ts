// The SQLite adapter shows the journal contract and nothing more: its driver handle, lock and synchronous
// shortcuts are private (tests reach them through test/helpers/journal-raw.ts). The check is made by the type
// checker (`tsc -p tsconfig.test.json`, part of `npm test`): a public member outside the contract fails it.
import { describe, expect, it } from 'vitest';
import type { SqliteJournal } from '../../../src/journal/sqlite/journal.js';
import type { JournalStore } from '../../../src/journal/store.js';

type Beyond = Exclude<keyof SqliteJournal, keyof JournalStore>;
type Missing = Exclude<keyof JournalStore, keyof SqliteJournal>;
const beyond: [Beyond] extends [never] ? 'none' : Beyond = 'none';
const missing: [Missing] extends [never] ? 'none' : Missing = 'none';

describe('the SQLite adapter', () => {
  it('has no public member outside the journal contract, and lacks none of it', () => {
    expect([beyond, missing]).toEqual(['none', 'none']);
  });
});
