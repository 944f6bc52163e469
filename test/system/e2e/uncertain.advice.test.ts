// The advice for uncertain rows can be followed as printed: the real journal (the job name, or the
// path), when each row was sent and how its prompt starts (to find it in the gateway's dashboard), and
// a bulk decision that must be named.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

const LONG = 'A heron lifting off a misty pond at dawn,\nwings wide, reeds bending in the wind, slow motion';

function lastSubmitIso(state: string, id: string): string {
  const journal = openSyncJournal(state, { readonly: true });
  try {
    return new Date(
      journal
        .events(id)
        .filter((e) => e.event === 'submit')
        .at(-1)!.at,
    ).toISOString();
  } finally {
    journal.close();
  }
}

test.skipIf(!BUILT)(
  "status and run name the real journal, each row's submission time and prompt start; resolve <job> --all-uncertain --abandon decides them all",
  async () => {
    const ws = workspace();
    const sim = await startSim({ faults: { acceptThenDropRate: 1 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    // Run from the workspace with the defaults: the journal is state/night.db, the job's own.
    writeJsonl(ws.path('night.jsonl'), [
      videoRow('v1', LONG),
      chatRow('c1', 'Name a constellation.\x1b[2J'),
      videoRow('v2', 'A short clip'),
    ]);
    const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
    const state = ws.path('state', 'night.db');

    const run = await cli('run', 'night.jsonl', '--poll-interval', '0.05');
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toContain('uncertain (3): the request may have reached the gateway');
    expect(run.stdout).toContain('gbatch resolve night.jsonl <id> --task-id <T>');
    expect(run.stdout).toContain('gbatch resolve night.jsonl --all-uncertain --resubmit   (or --abandon)');
    expect(run.stdout).not.toContain('--state F');

    // Read-only looks and refused decisions, side by side: none of them changes the journal.
    const [status, statusJson, undecided, withTask] = await Promise.all([
      cli('status', 'night'),
      cli('status', 'night', '--json'),
      cli('resolve', 'night', '--all-uncertain'),
      cli('resolve', 'night', '--all-uncertain', '--abandon', '--task-id', 'task_x'),
    ]);
    expect(status.code, status.stderr).toBe(0);
    const lines = status.stdout.split('\n');
    const v1 = lines.find((l) => l.startsWith('  v1 '))!;
    expect(v1).toContain(`submitted ${lastSubmitIso(state, 'v1')}`);
    expect(v1).toContain('"A heron lifting off a misty pond at dawn, wings wide, reeds…"');
    expect(lines.find((l) => l.startsWith('  c1 '))).toContain(
      `submitted ${lastSubmitIso(state, 'c1')}  "Name a constellation.\\x1b[2J"`,
    );
    expect(status.stdout).not.toContain('\x1b');
    expect(status.stdout).toContain('gbatch resolve night <id> --resubmit');
    expect(stdoutJson(statusJson).attention.uncertain).toEqual([
      expect.objectContaining({
        id: 'v1',
        submitted_at: lastSubmitIso(state, 'v1'),
        prompt_start: expect.stringMatching(/^A heron lifting off.*…$/),
      }),
      expect.objectContaining({
        id: 'c1',
        submitted_at: lastSubmitIso(state, 'c1'),
        prompt_start: 'Name a constellation.\\x1b[2J',
      }),
      expect.objectContaining({ id: 'v2', prompt_start: 'A short clip' }),
    ]);
    // The bulk form asks for the decision and refuses a task id.
    expect(undecided.code).toBe(2);
    expect(undecided.stderr).toMatch(/--all-uncertain needs the decision: exactly one of --resubmit .* or --abandon/);
    expect(withTask.code).toBe(2);
    expect(withTask.stderr).toMatch(/--all-uncertain cannot take --task-id/);
    expect(statesById(state)).toEqual({ v1: 'uncertain', c1: 'uncertain', v2: 'uncertain' });

    // One row by the job name, as the advice says.
    const one = await cli('resolve', 'night', 'v2', '--resubmit');
    expect(one.code, one.stderr).toBe(0);
    expect(statesById(state)).toEqual({ v1: 'uncertain', c1: 'uncertain', v2: 'pending' });

    const all = await cli('resolve', 'night', '--all-uncertain', '--abandon');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim()).toBe(
      '2 uncertain item(s) abandoned (now failed); each may have been billed, so its bound stays booked against the budget' +
        ' (`gbatch resolve night <item-id> --abandon --not-billed` releases one the gateway did not bill): v1, c1',
    );
    expect(statesById(state)).toEqual({ v1: 'failed', c1: 'failed', v2: 'pending' });
  },
);
