// `gbatch retry`: the operator sends failed or rejected rows again, each as one new attempt, and nothing
// else; never an uncertain row, nor one abandoned while uncertain (its request may have been kept).
import { expect, test } from 'vitest';
import type { Ledger } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { readJournal, statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

/** POST requests (submissions and chat calls) per prompt, as the gateway received them. */
function sendsByPrompt(ledger: Ledger): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of ledger.requests) {
    if (request.method !== 'POST') continue;
    const body = request.body as { prompt?: string; messages?: Array<{ content: string }> };
    const prompt = body.prompt ?? body.messages?.[0]?.content ?? '?';
    counts[prompt] = (counts[prompt] ?? 0) + 1;
  }
  return counts;
}

/**
 * `gbatch run` with the run's own retry policy off (that is tested in retry-policy.test.ts), and the
 * operator's way back, `gbatch retry`.
 */
function operatorCommands(ws: Workspace, manifest: string, env: NodeJS.ProcessEnv) {
  const runArgs = ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05'];
  return {
    run: () => runCli([...runArgs, '--retry-failed', '0', '--json', '--quiet'], { env }),
    retry: (...args: string[]) => runCli(['retry', '--state', ws.state, ...args]),
  };
}

test.skipIf(!BUILT)(
  'retry --failed, then run: exactly one new submission per failed row; retry <id> sends a rejected row once more',
  async () => {
    const ws = workspace();
    // The account may not use chat-large: that row is rejected (403). Every video task fails upstream.
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      faults: { failRate: 1 },
      taskSeconds: 0.1,
    });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'clip one'),
      chatRow('ok', 'a fine question'),
      videoRow('v2', 'clip two'),
      chatRow('no', 'a forbidden question', { model: 'chat-large' }),
    ]);
    const { run, retry } = operatorCommands(ws, manifest, env);

    const first = await run();
    expect(first.code, first.stderr).toBe(1);
    expect(statesById(ws.state)).toEqual({ v1: 'failed', ok: 'downloaded', v2: 'failed', no: 'rejected' });
    const once = { 'clip one': 1, 'a fine question': 1, 'clip two': 1, 'a forbidden question': 1 };
    expect(sendsByPrompt(sim.ledger)).toEqual(once);
    const failedTask = readJournal(ws.state).byId.get('v1')!.taskId;

    // Neither a flag nor an id: usage. A finished row by id: refused, nothing changed.
    const [usage, finished] = await Promise.all([retry(), retry('ok')]);
    expect(usage.code).toBe(2);
    expect(finished.code).toBe(2);
    expect(finished.stderr.trim()).toBe(
      'gbatch retry: item ok is downloaded: it finished; nothing to retry; nothing was requeued',
    );
    expect(statesById(ws.state)).toEqual({ v1: 'failed', ok: 'downloaded', v2: 'failed', no: 'rejected' });

    sim.faults.failRate = 0;
    const requeued = await retry('--failed');
    expect(requeued.code, requeued.stderr).toBe(0);
    expect(requeued.stdout).toContain('requeued 2 item(s): v1, v2');
    expect(requeued.stdout).toContain('the next `gbatch run` of this job sends them');
    const journal = readJournal(ws.state);
    expect(journal.byId.get('v1')).toMatchObject({
      state: 'pending',
      attempts: 1,
      taskId: null,
      actualUsd: null,
      lastError: null,
      reservedUsd: 0,
    });
    expect(sendsByPrompt(sim.ledger)).toEqual(once); // retry itself sends nothing

    const second = await run();
    expect(second.code, second.stderr).toBe(1); // the rejected row is still rejected: it was not retried
    expect(statesById(ws.state)).toEqual({ v1: 'downloaded', ok: 'downloaded', v2: 'downloaded', no: 'rejected' });
    expect(sendsByPrompt(sim.ledger)).toEqual({ ...once, 'clip one': 2, 'clip two': 2 });
    const v1 = readJournal(ws.state).byId.get('v1')!;
    expect(v1.attempts).toBe(2);
    expect(v1.taskId).not.toBe(failedTask);
    expect(readJournal(ws.state).byId.get('v2')).toMatchObject({ state: 'downloaded', attempts: 2 });

    // By id, a rejected row: one more send, rejected again by the same rule.
    const byId = await retry('no');
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain('requeued 1 item(s): no');
    const third = await run();
    expect(third.code, third.stderr).toBe(1);
    expect(sendsByPrompt(sim.ledger)).toEqual({ ...once, 'clip one': 2, 'clip two': 2, 'a forbidden question': 2 });
    expect(readJournal(ws.state).byId.get('no')).toMatchObject({ state: 'rejected', attempts: 2 });
  },
);

test.skipIf(!BUILT)('retry never sends an uncertain row, nor one abandoned while uncertain', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('heron', 'A heron lifting off a misty pond')]);
  const { run, retry } = operatorCommands(ws, manifest, env);
  expect((await run()).code).toBe(4);
  sim.faults.acceptThenDropRate = 0;

  const uncertain = await retry('heron');
  expect(uncertain.code).toBe(2);
  expect(uncertain.stderr.trim().split('\n')).toEqual([
    `gbatch retry: item heron is uncertain: its request may have reached the gateway; decide with \`gbatch resolve --state ${ws.state} heron --task-id <T>\`` +
      ' (or --resubmit / --abandon), not retry; nothing was requeued',
  ]);
  const none = await retry('--failed', '--rejected');
  expect(none.code, none.stderr).toBe(0);
  expect(none.stdout).toContain('nothing to retry');

  // A live runner holds the journal (here: this process): retry waits for it to end instead.
  const live = openSyncJournal(ws.state);
  try {
    live.lock.acquire(ws.state);
    const busy = await retry('--failed');
    expect(busy.code).toBe(73);
    expect(busy.stderr).toMatch(
      new RegExp(`^gbatch retry: .*another gbatch run \\(pid ${process.pid} .*wait for it to finish or stop it`),
    );
  } finally {
    live.lock.release();
    live.close();
  }

  expect((await runCli(['resolve', '--state', ws.state, 'heron', '--abandon'])).code).toBe(0);
  const bulk = await retry('--failed');
  expect(bulk.code, bulk.stderr).toBe(0);
  expect(bulk.stdout).toContain('nothing to retry');
  expect(bulk.stdout).toContain(
    'left out 1 failed item(s) abandoned while uncertain (their request may have reached the gateway; retry never resends them): heron',
  );
  const named = await retry('heron');
  expect(named.code).toBe(2);
  expect(named.stderr).toMatch(/^gbatch retry: item heron was abandoned while uncertain: .*`gbatch resolve`/);
  expect(statesById(ws.state)).toEqual({ heron: 'failed' });

  expect((await run()).code).toBe(1);
  expect(posts(sim.ledger)).toBe(1);
});
