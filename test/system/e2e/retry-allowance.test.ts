// --retry-failed N is a row's allowance in its whole life: a video whose task fails every time is sent at
// most 1 + N times over every run of the job, and only an operator's `gbatch retry` gives it N more.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim, tasksFor } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'a task that fails every time: 3 tasks over two runs with --retry-failed 2, 3 more after `gbatch retry`; report equals the ledger',
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { failRate: 1 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v', 'A clay dragon'), chatRow('c', 'Name a star.')]);
    const run = () =>
      runCli(
        [
          'run',
          manifest,
          '--state',
          ws.state,
          '--out',
          ws.out,
          '--poll-interval',
          '0.02',
          '--retry-failed',
          '2',
          '--retry-backoff',
          '0.05',
          '--json',
          '--quiet',
        ],
        { env },
      );
    const tasks = () => tasksFor(sim.ledger, 'A clay dragon');

    const first = await run();
    expect(first.code, first.stderr).toBe(1);
    expect(tasks().map((t) => t.state)).toEqual(['FAILURE', 'FAILURE', 'FAILURE']);
    expect(readJournal(ws.state).byId.get('v')).toMatchObject({ state: 'failed', attempts: 3 });

    // The second run finds the allowance used: it sends the row no more.
    const second = await run();
    expect(second.code, second.stderr).toBe(1);
    expect(tasks()).toHaveLength(3);
    expect(stdoutJson(second).auto_retried).toEqual([]);
    expect(second.stderr).not.toContain('again (--retry-failed');

    // The operator's retry starts a new allowance: one send and two retries more.
    const retried = await runCli(['retry', '--state', ws.state, '--failed'], { env });
    expect(retried.code, retried.stderr).toBe(0);
    expect(readJournal(ws.state).byId.get('v')).toMatchObject({ state: 'pending', autoRetries: 0 });
    const third = await run();
    expect(third.code, third.stderr).toBe(1);
    expect(tasks()).toHaveLength(6);
    expect(readJournal(ws.state).byId.get('v')).toMatchObject({ state: 'failed', attempts: 6, autoRetries: 2 });

    // What gbatch books is what the gateway billed: the chat call; each failed task was refunded.
    const report = await runCli(['report', '--state', ws.state, '--format', 'json'], { env });
    expect(report.code, report.stderr).toBe(0);
    const totals = stdoutJson(report).totals;
    expect(sim.ledger.chargesTotal('acct-1')).toBeGreaterThan(0);
    expect(totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 9);
  },
);
