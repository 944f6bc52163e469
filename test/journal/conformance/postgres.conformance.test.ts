// The journal conformance suite against the PostgreSQL adapter: one schema for the file, a job per test.
import { journalConformance } from './journal-conformance.js';
import { usePostgresHarness } from './postgres-harness.js';

journalConformance('postgres', usePostgresHarness);
