// The one translation of run's flags into the pipeline's configuration, and run's defaults typed for a
// caller that builds the configuration itself (`gbatch serve`).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { resolveJob } from '../../src/job/job.js';
import { parseOptions } from '../../src/job/options.js';
import { defaultSettings, MAX_RESPONSE_BYTES, runConfigOf } from '../../src/job/run-config.js';
import { RUN_OPTIONS, type RunFlags } from '../../src/job/run-options.js';
import type { RunEvents } from '../../src/pipeline/index.js';

const NOW = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));
const ACCESS = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' };

const configOf = (...argv: string[]) => {
  const flags: RunFlags = parseOptions(RUN_OPTIONS, argv).options;
  const job = resolveJob('manifests/nightly.jsonl', flags, NOW, {});
  return runConfigOf(job, ACCESS, { kept: true }, { events: new EventEmitter<RunEvents>() });
};

describe('runConfigOf', () => {
  it("gives a job run with no flag exactly run's defaults as defaultSettings types them", () => {
    const config = configOf();
    const { rpm, modelLimits, deadlineAt, retryCancelled, ...settings } = config.settings;
    expect([rpm, modelLimits, deadlineAt]).toEqual([undefined, undefined, undefined]);
    // The one setting that names the job: the command its cancel line offers.
    expect(retryCancelled).toBe('gbatch retry manifests/nightly.jsonl --cancelled');
    expect(settings).toEqual(defaultSettings('out/nightly'));
    expect(config.maxResponseBytes).toBe(MAX_RESPONSE_BYTES);
    expect(config).toMatchObject({
      jobName: 'nightly',
      manifests: ['manifests/nightly.jsonl'],
      statePath: 'state/nightly.db',
      baseUrl: ACCESS.baseUrl,
      apiKey: ACCESS.apiKey,
      jobOptions: { kept: true },
      journalDurability: 'sync',
      metaColumns: [],
      liftBudget: false,
      jobFileBudget: 'unset',
    });
    expect(config.budgetUsd).toBeUndefined();
  });

  it('turns each flag into its typed setting: seconds into ms, lists into arrays, names into choices', () => {
    const config = configOf(
      ...['--poll-interval', '2', '--retry-backoff', '0.5', '--deadline-grace', '3', '--drain', '90s'],
      ...['--journal-sync', 'off', '--meta-columns', 'notes, owner', '--model-limit', 'video-pro=4+30rpm'],
      ...['--budget', '5', '--rpm', '120', '--poll-rpm', '40', '--if-running', 'wait', '--deadline', '45m'],
      ...['--out', 's3://bucket/runs', '--s3-endpoint', 'http://127.0.0.1:9000', '--s3-path-style', '--no-wait'],
    );
    expect(config.settings).toMatchObject({
      pollIntervalMs: 2000,
      retryBackoffMs: 500,
      deadlineGraceMs: 3000,
      drainMs: 90_000,
      rpm: 120,
      pollRpm: 40,
      modelLimits: new Map([['video-pro', { concurrency: 4, rpm: 30 }]]),
      deadlineAt: NOW.getTime() + 45 * 60_000,
      outDir: 's3://bucket/runs',
      objectStore: { endpoint: 'http://127.0.0.1:9000', pathStyle: true },
      noWait: true,
    });
    expect(config).toMatchObject({
      journalDurability: 'relaxed',
      metaColumns: ['notes', 'owner'],
      budgetUsd: 5,
      ifRunning: { policy: 'wait', timeoutMs: 3_600_000, deadlineAt: NOW.getTime() + 45 * 60_000 },
    });
  });
});
