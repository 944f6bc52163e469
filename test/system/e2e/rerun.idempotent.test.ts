// `run` is idempotent: a finished job sends nothing again, appended rows are the only ones sent, and
// a row whose content changed under the same id is refused (exit 2, named) before anything is sent.

import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { appendJsonl, chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  're-running a finished job sends nothing; appended rows alone are sent; a changed row is refused',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('greet', 'Say good morning.'),
      videoRow('clip', 'A kite over a beach'),
    ]);
    const run = () =>
      runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--json', '--quiet'], {
        env,
      });

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(posts(sim.ledger)).toBe(2);
    const requestsAfterFirst = sim.ledger.requests.length;

    // Again, unchanged: nothing is sent, not even a poll.
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(stdoutJson(second).counts.downloaded).toBe(2);
    expect(sim.ledger.requests.length).toBe(requestsAfterFirst);

    // Two rows appended: exactly those two are sent.
    appendJsonl(manifest, [chatRow('thank', 'Say thank you.'), videoRow('clip-2', 'A kite over a lake')]);
    const third = await run();
    expect(third.code, third.stderr).toBe(0);
    const summary = stdoutJson(third);
    expect(summary.ingest).toMatchObject({ inserted: 2, unchanged: 2 });
    expect(posts(sim.ledger)).toBe(4);
    expect(duplicates(sim.ledger)).toEqual({});
    expect(sim.ledger.submissionsByPrompt()).toEqual({
      'Say good morning.': 1,
      'A kite over a beach': 1,
      'Say thank you.': 1,
      'A kite over a lake': 1,
    });
    expect(statesById(ws.state)).toEqual({
      greet: 'downloaded',
      clip: 'downloaded',
      thank: 'downloaded',
      'clip-2': 'downloaded',
    });
    expect(sha256File(ws.path('out', 'clip-2.mp4'))).toBe(SIM_VIDEO_SHA256);

    // An existing row's content changed under the same id: refused, named, nothing sent.
    const requestsBefore = sim.ledger.requests.length;
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('A kite over a beach', 'A kite over a canyon'));
    const fourth = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--quiet'],
      { env },
    );
    expect(fourth.code).toBe(2);
    expect(fourth.stderr).toMatch(/'clip'.*different content/);
    expect(fourth.stderr).toContain('rows.jsonl:2');
    expect(fourth.stdout).toMatch(/nothing was sent/i);
    expect(sim.ledger.requests.length).toBe(requestsBefore);
    expect(statesById(ws.state).clip).toBe('downloaded');
  },
);
