// Ctrl-C while the submission lane waits for budget headroom (the budget fully reserved by video tasks
// still running) is an interrupt, not a budget stop: the waiting row stays pending, the run exits with
// the code docs/reference.md gives a signal, and its last line says it was interrupted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { ROOT, workspace } from '../../helpers/workspace.js';

/** The `run` exit code docs/reference.md's table gives a run stopped by a signal. */
function documentedSignalExit(): number {
  const reference = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
  const table = reference.slice(reference.indexOf('## Exit codes'));
  const rows = table.split('\n').filter((line) => /^\| \d+ \|/.test(line) && /\ba signal\b/.test(line));
  expect(rows, 'one row of the exit-code table names a signal').toHaveLength(1);
  return Number(/^\| (\d+) \|/.exec(rows[0]!)![1]);
}

test.skipIf(!BUILT)(
  'SIGINT while waiting for budget headroom: exit as for a signal, said so with the command that carries on, the waiting row left pending (not deferred)',
  async () => {
    const ws = workspace();
    // Tasks that run far longer than the test: the two reservations sent never settle, so the third row waits.
    const sim = await startSim({ taskSeconds: 60 });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(
      ws.path('videos.jsonl'),
      ['A lighthouse', 'A harbour at dawn', 'Gulls over waves', 'A red buoy'].map((p, i) => videoRow(`v${i + 1}`, p)),
    );
    const plan = stdoutJson(await runCli(['plan', manifest, '--state', ws.state, '--json'], { env }));
    // Room for two rows' bounds, not three.
    const budget = Number(((plan.max_usd / 4) * 2.5).toFixed(6));
    const child = startCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--budget',
        String(budget),
        '--concurrency',
        '4',
        '--poll-interval',
        '0.2',
        '--progress',
        'json',
      ],
      { env },
    );
    await child.stderrMatching(/"type":"snapshot".*"waiting_for_budget":true/);
    expect(posts(sim.ledger)).toBe(2);
    child.child.kill('SIGINT');
    const ended = await child.result;

    const lastLine = ended.stdout.trimEnd().split('\n').at(-1);
    expect(ended.code, ended.stderr).toBe(documentedSignalExit());
    expect(lastLine).toBe(
      `Stopped by a signal: nothing new was sent after it; 4 item(s) open. Carry on: gbatch run ${manifest} --state ${ws.state}`,
    );
    expect(ended.stdout).not.toMatch(/Stopped by the job's budget/);
    const states = readJournal(ws.state).items.map((i) => `${i.id}: ${i.state}`);
    expect(states.filter((s) => /deferred/.test(s))).toEqual([]);
    expect(states).toEqual(expect.arrayContaining(['v3: pending', 'v4: pending']));
    expect(posts(sim.ledger)).toBe(2);
  },
  60_000,
);
