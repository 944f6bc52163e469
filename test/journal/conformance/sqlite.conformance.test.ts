// The journal conformance suite against the SQLite adapter: a fresh journal file per test.
import { useSqliteHarness } from './sqlite-harness.js';
import { journalConformance } from './suite.js';
import { orphansConformance } from './orphans-suite.js';
import { journalLossConformance } from './journal-loss-suite.js';

journalConformance('sqlite', useSqliteHarness);
orphansConformance('sqlite', useSqliteHarness);
journalLossConformance('sqlite', useSqliteHarness);
