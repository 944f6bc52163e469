// The scene of a runner frozen past its lease with requests on the wire: it is stopped (SIGSTOP) once
// `inFlight` submissions reached the gateway, another runner takes the job over and ends with the rows it
// found mid-request uncertain (exit 4), then the frozen one is resumed (SIGCONT) and ends fenced (exit 75).
// With it: the runners a test file starts and may leave stopped, and the `gbatch resolve` commands the
// resumed runner prints, pasted as an operator would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import {
  describeEnd,
  runPasted,
  startGbatch,
  type Ended,
  type Gateway,
  type GbatchChild,
} from './crash/gbatch-child.js';
import { watchSimulator } from './crash/sim-watch.js';
import { readReport, type ReportJson } from './runners.js';

/** The lease of the scene's runners: short, so that a frozen runner loses it within the test. */
const LEASE_MS = 1500;

export interface StoppableRunners {
  /** This file's folder (manifests, outputs), removed after its tests. */
  dir: string;
  /** Starts `gbatch` with `args`; after each test it is resumed (it may be stopped) and killed. */
  start(args: readonly string[], gateway: Gateway, env: NodeJS.ProcessEnv): GbatchChild;
}

/** Runners a test file may leave stopped (SIGSTOP) when an expectation fails: none outlives its test. */
export function stoppableRunners(prefix: string): StoppableRunners {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const started: GbatchChild[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) {
      child.process.kill('SIGCONT');
      child.kill();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    start(args, gateway, env) {
      const child = startGbatch(args, gateway, undefined, env);
      started.push(child);
      return child;
    },
  };
}

export interface Scene {
  sim: Simulator;
  gateway: Gateway;
  journalUrl: string;
  /** The runners' environment: the lease, and the journal, so the commands they print need no URL. */
  env: NodeJS.ProcessEnv;
  /** Starts one runner of the job. */
  run(): GbatchChild;
}

/**
 * A job's runners (`runArgs`) on the PostgreSQL journal `journalUrl`, against a simulator (`simulator`)
 * with one funded account whose every answer takes 600 ms: the frozen runner's requests are answered
 * while it is stopped. The caller closes `sim`.
 */
export async function startScene(options: {
  runners: StoppableRunners;
  journalUrl: string;
  apiKey: string;
  simulator: Pick<SimulatorOptions, 'seed' | 'taskSeconds'>;
  runArgs: readonly string[];
}): Promise<Scene> {
  const { runners, journalUrl, apiKey, simulator, runArgs } = options;
  const sim = await startSimulator({
    accounts: [{ key: apiKey, balanceUsd: 100 }],
    ...simulator,
    faults: { latencyMs: 600 },
  });
  const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey };
  const env = { GBATCH_LOCK_STALE_MS: String(LEASE_MS), GBATCH_JOURNAL_URL: journalUrl };
  return { sim, gateway, journalUrl, env, run: () => runners.start(runArgs, gateway, env) };
}

/** Runs the scene with `run` (each call starts one runner of the job); the resumed runner's end. */
export async function freezePastLease(sim: Simulator, inFlight: number, run: () => GbatchChild): Promise<Ended> {
  const watch = watchSimulator(sim);
  const frozen = run();
  await new Promise<void>((resolve) => {
    let posts = 0;
    watch.events.on('request', (entry) => {
      if (entry.method === 'POST' && ++posts === inFlight) resolve();
    });
  });
  frozen.process.kill('SIGSTOP');

  const other = await run().ended;
  expect(other.code, describeEnd('the other runner', other)).toBe(4);
  frozen.process.kill('SIGCONT');
  const resumed = await frozen.ended;
  expect(resumed.code, describeEnd('the resumed runner', resumed)).toBe(75);
  return resumed;
}

/** The `gbatch resolve` lines the runner printed, each as it would be pasted, with what `pattern` captures. */
export function printedResolveCommands(ended: Ended, pattern: RegExp): Array<{ line: string; values: string[] }> {
  return ended.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('gbatch resolve '))
    .map((line) => {
      const match = pattern.exec(line);
      if (!match) throw new Error(`not a command this test reads: ${line}`);
      return { line, values: match.slice(1).map((value) => value.replace(/^'|'$/g, '')) };
    });
}

/**
 * Pastes each command where the run was started (the same environment: journal, gateway), then runs the
 * job once more: every row of `job` ends downloaded. The report after.
 */
export async function pasteThenRunAgain(
  scene: Scene,
  commands: ReadonlyArray<{ line: string }>,
  job: string,
): Promise<ReportJson> {
  const { gateway, env, journalUrl } = scene;
  for (const { line } of commands) {
    const pasted = await runPasted(line, {
      ...env,
      GATEWAY_BASE_URL: gateway.baseUrl,
      GATEWAY_API_KEY: gateway.apiKey,
    });
    expect(pasted.code, describeEnd(line, pasted)).toBe(0);
  }
  const last = await scene.run().ended;
  expect(last.code, describeEnd('the next run', last)).toBe(0);
  const after = await readReport(job, journalUrl, gateway);
  expect(after.items.filter((i) => i.state !== 'downloaded').map((i) => `${i.id}: ${i.state}`)).toEqual([]);
  return after;
}
