// The journal conformance suite against the PostgreSQL adapter: one schema for the file, a job per test.
import { describe } from 'vitest';
import { pgAvailable } from '../../helpers/postgres.js';
import { usePostgresHarness } from './postgres-harness.js';
import { journalConformance } from './suite.js';
import { orphansConformance } from './orphans-suite.js';
import { journalLossConformance } from './journal-loss-suite.js';

describe.skipIf(!pgAvailable())('postgres', () => {
  journalConformance('postgres', usePostgresHarness);
  orphansConformance('postgres', usePostgresHarness);
  journalLossConformance('postgres', usePostgresHarness);
});
