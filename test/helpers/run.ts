// `runJob` in-process, with short timings, for tests that change faults or the clock mid-run.
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import type { Clock } from '../../src/core/clock.js';
import type { RunSettings } from '../../src/pipeline/context.js';
import { runJob, type RunConfig, type RunResult } from '../../src/pipeline/runner.js';
import type { Simulator } from '../../src/sim/index.js';
import { KEY } from './sim.js';
import type { Workspace } from './workspace.js';

export interface InProcessRun {
  sim: Simulator;
  ws: Workspace;
  manifests: string[];
  apiKey?: string;
  budgetUsd?: number;
  skipInvalid?: boolean;
  clock?: Clock;
  settings?: Partial<RunSettings>;
  extra?: Partial<RunConfig>;
}

export function settingsFor(ws: Workspace, overrides: Partial<RunSettings> = {}): RunSettings {
  return {
    outDir: ws.out,
    concurrency: 4,
    pollIntervalMs: 50,
    pollConcurrency: 8,
    downloadConcurrency: 4,
    maxSubmitAttempts: 8,
    resubmitUncertainText: false,
    maxAutoResubmits: 3,
    noWait: false,
    ...overrides,
  };
}

export function runInProcess(run: InProcessRun): Promise<RunResult> {
  return runJob({
    jobName: 'job',
    manifests: run.manifests,
    statePath: run.ws.state,
    settings: settingsFor(run.ws, run.settings),
    pricing: BUILTIN_PRICING,
    ...(run.budgetUsd !== undefined ? { budgetUsd: run.budgetUsd } : {}),
    baseUrl: run.sim.baseUrl,
    apiKey: run.apiKey ?? KEY,
    skipInvalid: run.skipInvalid ?? false,
    jobOptions: run.budgetUsd !== undefined ? { budget: run.budgetUsd } : {},
    ...(run.clock ? { clock: run.clock } : {}),
    ...run.extra,
  });
}
