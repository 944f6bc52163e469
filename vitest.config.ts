import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Probes the PostgreSQL test server once: its tests skip (with one line) or, with CI=true, fail without it.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: one worker per core (vitest's default leaves one idle); the crash and e2e tests spawn
    // children that mostly wait on I/O.
    maxWorkers: 2,
  },
});
