// The journal conformance suite against the SQLite adapter: a fresh journal file per test.
import { journalConformance } from './journal-conformance.js';
import { useSqliteHarness } from './sqlite-harness.js';

journalConformance('sqlite', useSqliteHarness);
