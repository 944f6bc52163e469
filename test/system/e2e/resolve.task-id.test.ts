// `resolve --task-id` attaches only a task the journal does not already hold for another row or an earlier
// attempt (else --force), and `resolve --detach-task` undoes a wrong attachment, even once its video was
// saved under the wrong row (issue 19). Against the hostile gateway: its ledger is what was billed.
import { expect, onTestFinished, test } from 'vitest';
import { dropSubmission, startHostileGateway, type HostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal, statesById } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { reportJson } from '../../helpers/report.js';
import { workspace } from '../../helpers/workspace.js';

const A = 'A heron lifting off a misty pond';
const B = 'A fox crossing a snowy field';
const C = 'A kite over a windy beach';

/**
 * a: its submission kept but unanswered; c: its first task fails upstream, its second submission kept but unanswered.
 */
async function gateway(): Promise<HostileGateway> {
  const sent = new Map<string, number>();
  const gw = await startHostileGateway({
    pollsUntilDone: 0,
    routes: {
      videoSubmit: dropSubmission((req) => {
        const prompt = String(req.json?.prompt);
        const n = (sent.get(prompt) ?? 0) + 1;
        sent.set(prompt, n);
        return (prompt === A && n === 1) || (prompt === C && n === 2) ? 'keep' : undefined;
      }),
    },
    failReason: (task) =>
      task.prompt === C && [...gw.tasks.values()].find((t) => t.prompt === C) === task ? 'upstream failure' : undefined,
  });
  onTestFinished(() => gw.close());
  return gw;
}

const taskOf = (gw: HostileGateway, prompt: string, nth = 0) =>
  [...gw.tasks.values()].filter((t) => t.prompt === prompt)[nth]!.id;

function setup(gw: HostileGateway, ids: ReadonlyArray<[string, string]>) {
  const ws = workspace();
  const env = gatewayEnv(gw.baseUrl, gw.key);
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    ids.map(([id, prompt]) => videoRow(id, prompt)),
  );
  return {
    ws,
    // The task that fails is the operator's to send again (`retry`): the run's own retry policy is off.
    run: () =>
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
          '0',
          '--json',
          '--quiet',
        ],
        { env },
      ),
    resolve: (...args: string[]) => runCli(['resolve', '--state', ws.state, ...args], { env }),
  };
}

test.skipIf(!BUILT)(
  "resolve --task-id refuses another row's task, and this row's own earlier task that failed, without --force",
  async () => {
    const gw = await gateway();
    const { ws, run, resolve } = setup(gw, [
      ['a', A],
      ['b', B],
      ['c', C],
    ]);
    expect((await run()).code).toBe(4);
    expect(statesById(ws.state)).toEqual({ a: 'uncertain', b: 'downloaded', c: 'failed' });
    const [tb, tc1] = [taskOf(gw, B), taskOf(gw, C)];

    // Another row's task: the old code attached it (and saved b's video as a's).
    const other = await resolve('a', '--task-id', tb);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      new RegExp(`task ${tb} is already item 'b''s task: .*pass --force to attach it anyway; nothing changed`),
    );
    expect(readJournal(ws.state).byId.get('a')).toMatchObject({ state: 'uncertain', taskId: null });

    // This row's own earlier task, which failed.
    expect((await runCli(['retry', '--state', ws.state, 'c'])).code).toBe(0);
    expect((await run()).code).toBe(4);
    expect(statesById(ws.state)).toMatchObject({ a: 'uncertain', c: 'uncertain' });
    const earlier = await resolve('c', '--task-id', tc1);
    expect(earlier.code).toBe(2);
    expect(earlier.stderr).toMatch(
      new RegExp(`task ${tc1} was this item's task in attempt 1, an attempt that already ended`),
    );
    expect((await resolve('c', '--task-id', taskOf(gw, C, 1))).code).toBe(0);
    expect((await resolve('a', '--task-id', taskOf(gw, A))).code).toBe(0);
    expect((await run()).code).toBe(0);
    expect((await reportJson(ws.state)).totals.actual_usd).toBeCloseTo(gw.billedUsd(), 6);
  },
  90_000,
);

test.skipIf(!BUILT)(
  'a wrong task attached with --force and downloaded under the wrong row is undone by --detach-task, its bound booked again',
  async () => {
    const gw = await gateway();
    const { ws, run, resolve } = setup(gw, [
      ['a', A],
      ['b', B],
    ]);
    expect((await run()).code).toBe(4);
    const [ta, tb] = [taskOf(gw, A), taskOf(gw, B)];
    const boundA = readJournal(ws.state).byId.get('a')!.reservedUsd;
    expect(boundA).toBeGreaterThan(0);

    const forced = await resolve('a', '--task-id', tb, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect((await run()).code).toBe(0);
    expect(readJournal(ws.state).byId.get('a')).toMatchObject({ state: 'downloaded', taskId: tb });
    const detached = await resolve('a', '--detach-task');
    expect(detached.code, detached.stderr).toBe(0);
    expect(detached.stdout).toMatch(
      new RegExp(`item 'a': task ${tb} detached; the row is uncertain again, its bound booked`),
    );
    expect(readJournal(ws.state).byId.get('a')).toMatchObject({
      state: 'uncertain',
      taskId: null,
      actualUsd: null,
      outputPath: null,
      reservedUsd: boundA,
    });
    expect(
      stdoutJson(await runCli(['status', '--state', ws.state, '--json'])).attention.uncertain.map(
        (i: { id: string }) => i.id,
      ),
    ).toEqual(['a']);

    // A second detach, or one of the gateway's own task, is refused.
    expect((await resolve('a', '--detach-task')).stderr).toMatch(/only a task attached with --task-id can be detached/);
    expect((await resolve('b', '--detach-task')).stderr).toMatch(
      new RegExp(`task ${tb} is the gateway's answer to item 'b''s own submission`),
    );

    // The right task: both end downloaded, and the report books what the gateway billed.
    expect((await resolve('a', '--task-id', ta)).code).toBe(0);
    expect((await run()).code).toBe(0);
    expect(readJournal(ws.state).byId.get('a')).toMatchObject({ state: 'downloaded', taskId: ta });
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(gw.billedUsd(), 6);
    expect(report.totals.reserved_usd).toBe(0);
  },
  90_000,
);
