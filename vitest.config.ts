import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: one worker per core (vitest's default leaves one idle); the crash and e2e tests spawn
    // children that mostly wait on I/O.
    maxWorkers: 2,
  },
});
