import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Test files share one process per worker (isolate: false): a fresh process and module graph per
// file cost ~0.7-1 s of CPU each, more than most files' tests take, and the suite is CPU-bound. A file
// that replaces a module for the whole process (vi.mock) or leaves process-wide state behind goes in
// OWN_PROCESS; the SIGKILL campaigns of system/crash, and system/package, keep a process per file too
// (they are not measured shared yet). system/multi's runners are child processes: its files share.
const OWN_PROCESS_DIRS = ['system/crash/', 'system/package/'];
const OWN_PROCESS = new Set(['test/gateway/download.finish.test.ts']);

const testDir = fileURLToPath(new URL('./test/', import.meta.url));
const shared = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts') && !OWN_PROCESS_DIRS.some((dir) => path.startsWith(dir)))
  .map((path) => `test/${path}`)
  .filter((path) => !OWN_PROCESS.has(path));

export default defineConfig({
  test: {
    // Probes the PostgreSQL test server once: its tests skip (with one line) or, with CI=true, fail without it.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: one worker per core (vitest's default leaves one idle); the crash and e2e tests spawn
    // children that mostly wait on I/O.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'shared', include: shared, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: shared } },
    ],
  },
});
