// A batch is a job of the journal, named by its batch id: an operator reads it with `gbatch status` and
// `gbatch report` (every format) and stops it with `gbatch cancel`, each given the batch's own journal
// (`--state DATA/journals/<batch>.db` with SQLite). Once the batch is final nothing changes it: `resolve` is
// refused and its files stay as they ended.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli, stdoutJson } from '../../helpers/cli.js';
import { duplicates } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { batchEnd, client, filesOf, heldChatBatch, restartAfterSigkill } from '../../helpers/serve.js';

const codeOf = (line: Record<string, unknown>): string => (line.error as { code: string }).code;

describe.skipIf(!BUILT)('gbatch serve: the operator commands on a batch', () => {
  it('status and report in every format work on a batch by its id; resolve is refused once it is final', async () => {
    const ws = workspace('gbatch-serve-');
    const ids = ['q0', 'q1', 'q2', 'q3'];
    const first = await heldChatBatch(ws, ids, 'operator');
    const { held, sim, created } = first;
    // Two requests on the wire when the server dies: their outcome is unknown, they end uncertain.
    const server = await restartAfterSigkill(first.server, first.options);
    held.release();
    expect(await batchEnd(server, created.id)).toBe('completed');
    const openai = client(server);
    const batch = await openai.batches.retrieve(created.id);
    const before = await filesOf(openai, batch);
    const uncertain = before.errors.filter((l) => codeOf(l) === 'uncertain').map((l) => l.custom_id as string);
    expect(uncertain).toHaveLength(2);

    const state = ['--state', ws.path(`data/journals/${created.id}.db`)];
    const status = await runCli(['status', created.id, ...state, '--json']);
    expect(status.code).toBe(0);
    expect(stdoutJson(status)).toMatchObject({ counts: { downloaded: 2, uncertain: 2 } });
    // --check names the batch's uncertain rows for an operator.
    const check = await runCli(['status', created.id, ...state, '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/uncertain/);

    const json = await runCli(['report', created.id, ...state, '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.stringify(stdoutJson(json))).toContain(created.id);
    const csv = await runCli(['report', created.id, ...state, '--format', 'csv']);
    expect(csv.code).toBe(0);
    for (const id of ids) expect(csv.stdout).toContain(id);
    const html = await runCli(['report', created.id, ...state, '--format', 'html', '--output', ws.path('r.html')]);
    expect(html.code).toBe(0);
    const table = await runCli(['report', created.id, ...state, '--format', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(created.id);
    expect(table.stdout).toMatch(/uncertain/);

    // The batch is final: giving an uncertain row up would change its journal and error file. Refused, one line.
    // With --state every argument of resolve is an item id: the journal file names the batch.
    const [given] = uncertain as [string, string];
    const resolve = await runCli(['resolve', given, '--abandon', ...state]);
    expect(resolve.code, resolve.stderr).toBe(2);
    expect(resolve.stderr).toContain(`the job is the gbatch serve batch ${created.id}, which is completed;`);
    expect(await filesOf(openai, await openai.batches.retrieve(created.id))).toEqual(before);
    expect(stdoutJson(await runCli(['status', created.id, ...state, '--json']))).toMatchObject({
      counts: { uncertain: 2, downloaded: 2 },
    });
    expect(duplicates(sim.ledger)).toEqual({});
  });

  it('gbatch cancel stops a running batch: what was on the wire settles, the rest batch_cancelled', async () => {
    const ws = workspace('gbatch-serve-');
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const { held, server, created } = await heldChatBatch(ws, ids, 'cancel');
    const openai = client(server);
    const state = ['--state', ws.path(`data/journals/${created.id}.db`)];
    const cancel = await runCli(['cancel', created.id, ...state, '--reason', 'operator stop', '--wait', '20']);
    expect(cancel.code, cancel.stderr).toBe(0);
    held.release();
    expect(await batchEnd(server, created.id)).toBe('completed');
    const { output, errors } = await filesOf(openai, await openai.batches.retrieve(created.id));
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(ids);
    // The two on the wire were answered; nothing else left.
    expect(output).toHaveLength(2);
    expect(errors.map(codeOf)).toEqual(Array(6).fill('batch_cancelled'));
    expect(held.count()).toBe(2);
  });
});
