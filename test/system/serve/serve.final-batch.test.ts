// A final batch never changes: its journal and files stay as they ended. The CLI refuses every command that
// would change its job (exit 2, one line saying why), the dashboard offers no action on it and refuses one
// posted anyway, and its error file reads the same afterwards.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { batchEnd, chatLine, client, filesOf, startServe, submitBatch } from '../../helpers/serve.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { bearer, startUiChild } from '../../helpers/ui.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('gbatch serve: a final batch', () => {
  it('is refused by retry, cancel, resolve and run, offered no action by the dashboard, and never changes', async () => {
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const created = await submitBatch(openai, ws.path('in.jsonl'), [
      chatLine('a', 'first'),
      chatLine('b', 'second'),
      { ...chatLine('c', 'third'), body: { model: 'chat-large', messages: [{ role: 'user', content: 'third' }] } },
    ]);
    expect(await batchEnd(server, created.id)).toBe('completed');
    const batch = await openai.batches.retrieve(created.id);
    const before = await filesOf(openai, batch);
    expect(before.errors.map((line) => line.custom_id)).toEqual(['c']);
    const journal = ws.path('data', 'journals', `${created.id}.db`);
    const states = statesById(journal);
    expect(states).toEqual({ a: 'downloaded', b: 'downloaded', c: 'rejected' });

    const why = `the job is the gbatch serve batch ${created.id}, which is completed; a final batch's journal and files never change; nothing was changed`;
    for (const command of [
      ['retry', '--state', journal, '--rejected'],
      ['retry', '--state', journal, 'c'],
      ['cancel', '--state', journal],
      ['forget', '--state', journal, 'c'],
      ['resolve', '--state', journal, '--all-uncertain', '--abandon'],
    ]) {
      const refused = await runCli(command);
      expect(refused.code, command.join(' ')).toBe(2);
      expect(refused.stderr.trim(), command.join(' ')).toBe(`gbatch ${command[0]}: ${journal}: ${why}`);
    }
    const run = await runCli(['run', ws.path('in.jsonl'), '--state', journal, '--out', ws.path('out')], {
      env: { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: KEY },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(why);

    const ui = await startUiChild(['--state-dir', ws.path('data', 'journals'), '--allow-actions']);
    try {
      const page = await (await fetch(`${ui.url}jobs/${created.id}`, { headers: bearer() })).text();
      expect(page).toContain('No actions: the job is the gbatch serve batch');
      expect(page).not.toMatch(/retry 1 rejected/);
      const posted = await fetch(`${ui.url}jobs/${created.id}/actions/retry-rejected`, {
        method: 'POST',
        headers: bearer(),
        body: new URLSearchParams({ confirm: 'yes' }),
      });
      expect([posted.status, await posted.text()]).toEqual([409, why]);
    } finally {
      await ui.stop();
    }

    expect(statesById(journal)).toEqual(states);
    expect(await filesOf(openai, await openai.batches.retrieve(created.id))).toEqual(before);
    expect(sim.ledger.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
  });
});
