// A video whose download keeps failing: each run tries it a few rounds, and its failed rounds count in the
// journal across runs, so after MAX_DOWNLOAD_FAILURES in all the row ends `failed` with the cause (its task
// stays billed) and no later run downloads it or sends it again.
import { expect, onTestFinished, test } from 'vitest';
import { MAX_DOWNLOAD_FAILURES, MAX_DOWNLOAD_ROUNDS } from '../../../src/core/download-tries.js';
import { DEFAULT_BACKOFF } from '../../../src/core/retry.js';
import { createGatewayClient, type GatewayClient } from '../../../src/gateway/client.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { KEY, startSim, tasksFor } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

/** The runner's client with the default number of attempts but millisecond backoffs, to keep the test fast. */
function fastRetryingGateway(baseUrl: string): GatewayClient {
  const gateway = createGatewayClient({ baseUrl, apiKey: KEY, backoff: { ...DEFAULT_BACKOFF, baseMs: 5, maxMs: 50 } });
  onTestFinished(() => gateway.close());
  return gateway;
}

test.skipIf(!BUILT)(
  'a download that always fails: 5 rounds a run, the row failed with the cause after 10 in all; report equals the ledger',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { truncateDownloadRate: 1 } });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v', 'A lantern on a pier'),
      chatRow('c', 'Name a river.'),
    ]);
    const downloads = () => sim.ledger.requests.filter((r) => r.path.endsWith('/content')).length;
    const run = () =>
      runInProcess({
        sim,
        ws,
        manifests: [manifest],
        settings: { retryFailed: 2 },
        extra: { gateway: fastRetryingGateway(sim.baseUrl) },
      });

    // Night 1: its rounds are used; the finished video waits for a later run.
    await run();
    expect(readJournal(ws.state).byId.get('v')).toMatchObject({ state: 'succeeded' });
    const perRun = downloads();
    expect(perRun).toBeGreaterThanOrEqual(MAX_DOWNLOAD_ROUNDS);

    // Night 2: the rounds in all reach the bound: the row ends failed, with the download's cause.
    const second = await run();
    expect(second.exitCode).toBe(1);
    const v = readJournal(ws.state).byId.get('v')!;
    expect(v.state).toBe('failed');
    expect(v.lastError?.message).toMatch(
      new RegExp(
        `^the video could not be downloaded in ${MAX_DOWNLOAD_FAILURES} rounds of tries \\(its task succeeded and stays billed\\): `,
      ),
    );
    expect(v.downloadFailures).toBe(MAX_DOWNLOAD_FAILURES);
    expect(v.actualUsd).toBeGreaterThan(0);
    expect(downloads()).toBe(2 * perRun);

    // Night 3: nothing is downloaded or sent again (the retry policy does not take a billed task's row).
    const third = await run();
    expect(third.exitCode).toBe(1);
    expect(downloads()).toBe(2 * perRun);
    expect(tasksFor(sim.ledger, 'A lantern on a pier')).toHaveLength(1);

    // The billed task stays booked: report's total is the gateway's.
    const report = await runCli(['report', '--state', ws.state, '--format', 'json'], {
      env: gatewayEnv(sim.baseUrl, KEY),
    });
    expect(report.code, report.stderr).toBe(0);
    expect(stdoutJson(report).totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 9);
  },
);
