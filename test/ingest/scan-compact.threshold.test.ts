// The size from which manifests are read in a worker thread: 8 MiB, unless a test lowers it through
// the internal knob (the e2e tests of the worker path use it to avoid writing 8 MiB manifests).
import { expect, test } from 'vitest';
import { WORKER_THRESHOLD_BYTES, WORKER_THRESHOLD_ENV, workerThresholdBytes } from '../../src/ingest/scan-compact.js';

test('8 MiB by default; the knob lowers it; a value that is no positive number is ignored', () => {
  expect(WORKER_THRESHOLD_BYTES).toBe(8 * 1024 * 1024);
  expect(workerThresholdBytes({})).toBe(WORKER_THRESHOLD_BYTES);
  expect(workerThresholdBytes({ [WORKER_THRESHOLD_ENV]: '65536' })).toBe(65_536);
  for (const value of ['', '0', '-1', 'big'])
    expect(workerThresholdBytes({ [WORKER_THRESHOLD_ENV]: value }), value).toBe(WORKER_THRESHOLD_BYTES);
});
