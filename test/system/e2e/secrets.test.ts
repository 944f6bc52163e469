// The API key never leaves the environment variable: no file under the job's folder (journal, WAL,
// outputs, results.jsonl, reports) and no stdout or stderr of any command holds it, error paths included.

import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { BUILT, gatewayEnv, runCli, type CliResult } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { startSim } from '../../helpers/sim.js';
import { runInProcess } from '../../helpers/run.js';
import { filesUnder, workspace, type Workspace } from '../../helpers/workspace.js';

const SECRET = 'sk-sim-SECRET-0123456789';
const WRONG = 'sk-sim-SECRET-WRONG-9876543210';
const SECRETS = [SECRET, WRONG, 'SECRET-0123456789', 'SECRET-WRONG'];

function expectNoSecretIn(ws: Workspace, outputs: CliResult[]): void {
  const files = filesUnder(ws.dir);
  expect(files.some((f) => f.endsWith('.db'))).toBe(true);
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const secret of SECRETS) expect(bytes.includes(secret), `${file} holds the key`).toBe(false);
  }
  for (const [i, result] of outputs.entries()) {
    for (const secret of SECRETS) {
      expect(result.stdout, `stdout of command ${i}`).not.toContain(secret);
      expect(result.stderr, `stderr of command ${i}`).not.toContain(secret);
    }
  }
}

test.skipIf(!BUILT)(
  'the key appears in no file and no output: runs, faults, a wrong key, status, report, resolve',
  async () => {
    const ws = workspace();
    const sim = await startSim({
      accounts: [{ key: SECRET, balanceUsd: 50, models: ['chat-small', 'video-mini'] }],
      faults: { errorRates: { poll: 0.3, content: 0.3, chat: 0.2 }, truncateDownloadRate: 0.3, acceptThenDropRate: 0 },
    });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow('c1', 'Name a planet.'),
      chatRow('c2', 'Name a moon.'),
      videoRow('v1', 'A comet over a desert'),
      videoRow('v2', 'A satellite in orbit'),
      // A model the account may not use: the gateway answers 403 and the row is rejected.
      { id: 'denied', kind: 'chat', model: 'chat-large', messages: [{ role: 'user', content: 'Forbidden model' }] },
    ]);
    const outputs: CliResult[] = [];
    const cli = async (args: string[], key?: string): Promise<CliResult> => {
      const result = await runCli(args, key === undefined ? {} : { env: gatewayEnv(sim.baseUrl, key) });
      outputs.push(result);
      return result;
    };
    const common = ['--state', ws.state, '--out', ws.out, '--poll-interval', '0.05'];

    const run = await cli(['run', manifest, ...common], SECRET);
    expect(run.code, run.stderr).toBe(1);
    expect(readJournal(ws.state).byId.get('denied')).toMatchObject({ state: 'rejected', lastError: { status: 403 } });
    expect((await cli(['run', manifest, ...common, '--json'], SECRET)).code).toBe(1);
    expect((await cli(['status', '--state', ws.state])).code).toBe(0);
    expect((await cli(['status', '--state', ws.state, '--json'])).code).toBe(0);
    for (const format of ['table', 'json', 'csv']) {
      expect((await cli(['report', '--state', ws.state, '--format', format])).code).toBe(0);
      expect(
        (
          await cli([
            'report',
            '--state',
            ws.state,
            '--format',
            format,
            '--output',
            ws.path('reports', `report.${format}`),
          ])
        ).code,
      ).toBe(0);
    }
    // resolve on an item that is not uncertain, and on an uncertain one with a task the gateway does not know.
    expect((await cli(['resolve', '--state', ws.state, 'v1', '--task-id', 'task_nope'], SECRET)).code).toBe(2);
    sim.faults.acceptThenDropRate = 1;
    const dropped = {
      state: ws.path('state', 'dropped.db'),
      manifest: writeJsonl(ws.path('one.jsonl'), [videoRow('lost', 'A lost answer')]),
    };
    expect((await cli(['run', dropped.manifest, '--state', dropped.state, '--out', ws.out], SECRET)).code).toBe(4);
    sim.faults.acceptThenDropRate = 0;
    const unknownTask = await cli(['resolve', '--state', dropped.state, 'lost', '--task-id', 'task_nope'], SECRET);
    expect(unknownTask.code).toBe(2);
    expect(unknownTask.stderr).toMatch(/unknown to the gateway/);

    // A wrong key on a new journal: the gateway answers 401, the run stops (bad configuration, exit 2)
    // and says so without the key; the rows stay pending for a run with the right key.
    const other = { state: ws.path('state', 'other.db'), out: ws.path('out-other') };
    const wrong = await cli(
      ['run', manifest, '--state', other.state, '--out', other.out, '--poll-interval', '0.05', '--json'],
      WRONG,
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/refused the API key \(401\)/);
    expect(readJournal(other.state).items.every((i) => i.state === 'pending')).toBe(true);
    expect((await cli(['report', '--state', other.state, '--format', 'json'])).code).toBe(0);

    // No gateway at that address: the connection is refused, the message names the URL and nothing else.
    const closed = await cli(
      [
        'run',
        manifest,
        '--state',
        ws.path('state', 'closed.db'),
        '--out',
        ws.path('out-closed'),
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--max-attempts',
        '1',
      ],
      SECRET,
    );
    expect(closed.code).not.toBe(0);

    expectNoSecretIn(ws, outputs);
  },
);

test.skipIf(!BUILT)(
  'a gateway that echoes the key in its error messages: gbatch stores and prints it redacted',
  async () => {
    const ws = workspace();
    const echo = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const auth = req.headers.authorization ?? '';
        res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': `req ${auth}` });
        res.end(
          JSON.stringify({
            error: {
              message: `Incorrect request for key ${auth.slice(7)}`,
              type: 'invalid_request_error',
              param: auth,
              code: auth,
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => echo.close(() => resolve())));
    const baseUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'Hello?'), videoRow('v1', 'A quiet street')]);

    const outputs = [
      await runCli(['run', manifest, '--state', ws.state, '--out', ws.out], { env: gatewayEnv(baseUrl, SECRET) }),
    ];
    expect(outputs[0]!.code).toBe(1);
    const items = readJournal(ws.state).items;
    expect(items.map((i) => i.state)).toEqual(['rejected', 'rejected']);
    expect(items[0]!.lastError!.message).toMatch(/Incorrect request for key/);
    outputs.push(await runCli(['report', '--state', ws.state, '--format', 'json']));
    outputs.push(await runCli(['report', '--state', ws.state, '--format', 'csv', '--output', ws.path('r.csv')]));
    outputs.push(await runCli(['report', '--state', ws.state, '--format', 'html', '--output', ws.path('r.html')]));
    outputs.push(await runCli(['status', '--state', ws.state]));

    expectNoSecretIn(ws, outputs);
  },
);

test('the journal WAL, read while the run writes it, never holds the key', async () => {
  const ws = workspace();
  const sim = await startSim({ accounts: [{ key: SECRET, balanceUsd: 50 }], faults: { errorRates: { poll: 0.3 } } });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    chatRow('c1', 'Name a river.'),
    videoRow('v1', 'A river delta from above'),
  ]);
  const events = new EventEmitter<RunEvents>();
  let walReads = 0;
  let leaks = 0;
  events.on('transition', () => {
    const wal = `${ws.state}-wal`;
    if (!existsSync(wal)) return;
    const bytes = readFileSync(wal);
    if (bytes.length > 0) walReads++;
    if (SECRETS.some((secret) => bytes.includes(secret))) leaks++;
  });
  const result = await runInProcess({ sim, ws, manifests: [manifest], apiKey: SECRET, extra: { events } });
  expect(result.exitCode).toBe(0);
  expect(walReads).toBeGreaterThan(0);
  expect(leaks, 'WAL reads that held the key').toBe(0);
  expectNoSecretIn(ws, []);
});
