// `gbatch sim --state FILE`: a simulator closed with tasks in flight and started again on the same file
// carries on: its tasks, ledger and balances are the ones it had, each task settles once, and new task ids
// go on from the random sequence instead of repeating it. The file is replaced whole, never half written.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { BUILT, runCli } from '../helpers/cli.js';
import { KEY, poll, post, simClock, submit } from '../helpers/sim-http.js';
import { workspace } from '../helpers/workspace.js';

const VIDEO = { model: 'video-mini', prompt: 'a lighthouse in fog', resolution: '480p', duration: 2 };

async function withSim<T>(options: SimulatorOptions, body: (sim: Simulator) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ accounts: [{ key: KEY, balanceUsd: 50 }], taskSeconds: 10, seed: 5, ...options });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

describe('--state FILE', () => {
  test('tasks in flight, the ledger and the balance survive a restart; each task settles once', async () => {
    const ws = workspace();
    const file = ws.path('sim-state.json');
    const clock = simClock();
    const first = await withSim({ stateFile: file, clock }, async (sim) => {
      expect(sim.state).toEqual({ file, restoredTasks: 0 });
      const task = await submit(sim.baseUrl, KEY, VIDEO);
      const chat = await post(sim.baseUrl, '/chat/completions', KEY, {
        model: 'chat-small',
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(chat.status).toBe(200);
      return {
        taskId: task.json.id as string,
        balance: sim.account(KEY).balanceUsd,
        requests: sim.ledger.requests.length,
      };
    });
    // Closed with the task in flight: the file holds it, and no temporary file is left beside it.
    expect(readdirSync(ws.dir).filter((f) => f.startsWith('sim-state'))).toEqual(['sim-state.json']);
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);

    await withSim({ stateFile: file, clock }, async (sim) => {
      expect(sim.state).toEqual({ file, restoredTasks: 1 });
      expect(sim.account(KEY).balanceUsd).toBeCloseTo(first.balance, 12);
      expect(sim.ledger.requests).toHaveLength(first.requests);
      expect((await poll(sim.baseUrl, KEY, first.taskId)).json.data.status).not.toBe('SUCCESS');
      await clock.advance(11_000);
      expect((await poll(sim.baseUrl, KEY, first.taskId)).json.data.status).toBe('SUCCESS');
      const second = await submit(sim.baseUrl, KEY, { ...VIDEO, prompt: 'the same lighthouse at noon' });
      expect(second.json.id).not.toBe(first.taskId);
    });

    // Started once more: the settlement happened once, in the run before, and is not done again.
    await withSim({ stateFile: file, clock }, async (sim) => {
      await clock.advance(11_000);
      expect(sim.ledger.tasks.map((t) => t.state)).toEqual(['SUCCESS', 'SUCCESS']);
      expect(sim.ledger.charges.map((c) => c.kind)).toEqual(['reserve', 'chat', 'settle', 'reserve', 'settle']);
      const spent = sim.ledger.charges.reduce((sum, c) => sum + c.usd, 0);
      expect(sim.account(KEY).balanceUsd).toBeCloseTo(50 - spent, 12);
    });

    // A simulator on the same seed without the state starts its ids over: the state is what keeps them apart.
    const fresh = await withSim({ clock }, (sim) => submit(sim.baseUrl, KEY, VIDEO));
    expect(fresh.json.id).toBe(first.taskId);
  });

  test('a file that is not a state, or accounts the file does not match: refused with the file named', async () => {
    const ws = workspace();
    const file = ws.path('sim-state.json');
    writeFileSync(file, '{"version": 1}');
    await expect(startSimulator({ stateFile: file })).rejects.toThrow(
      `${file}: not a simulator state file (field random:`,
    );
    const clock = simClock();
    await withSim(
      {
        stateFile: file.replace('.json', '-2.json'),
        clock,
        accounts: [
          { key: 'a', balanceUsd: 1 },
          { key: 'b', balanceUsd: 1 },
        ],
      },
      async (sim) => {
        await post(sim.baseUrl, '/chat/completions', 'b', {
          model: 'chat-small',
          messages: [{ role: 'user', content: 'hi' }],
        });
      },
    );
    await expect(
      startSimulator({ stateFile: file.replace('.json', '-2.json'), accounts: [{ key: 'a', balanceUsd: 1 }] }),
    ).rejects.toThrow(/the state holds acct-2, but only 1 account\(s\) are given/);
  });

  test.skipIf(!BUILT)('gbatch sim: a state file it cannot read or write is exit 2 and one line naming it', async () => {
    const ws = workspace();
    const file = ws.path('state.json');
    writeFileSync(file, 'not json');
    const result = await runCli(['sim', '--port', '0', '--state', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`gbatch sim: cannot start: ${file}: not a simulator state file (not JSON:`),
    ]);
    const nowhere = ws.path('no-such-folder', 'state.json');
    const unwritable = await runCli(['sim', '--port', '0', '--state', nowhere]);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`gbatch sim: cannot start: ${nowhere}: cannot write the simulator's state: ENOENT`),
    ]);
  });
});
