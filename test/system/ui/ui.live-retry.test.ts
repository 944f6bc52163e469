// While a run is live on a job, `gbatch retry` is refused (exit 73): its lanes would not see the rows come
// back. The dashboard, reading the same journal, does not offer the retry meanwhile and says why; its
// confirmation and its action refuse with the reason. Once the run has ended, the retry is offered again.
import { mkdirSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { bearer, startUiChild } from '../../helpers/ui.js';

test.skipIf(!BUILT)(
  'a live run: no retry offered, the reason shown, the action refused; offered again once the run ended',
  async () => {
    const ws = workspace();
    // chat-large is not the account's: its row is rejected at once. The video's task runs for a minute.
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      taskSeconds: 60,
    });
    mkdirSync(ws.path('state'));
    const manifest = writeJsonl(ws.path('night.jsonl'), [
      chatRow('no', 'a forbidden question', { model: 'chat-large' }),
      videoRow('v1', 'a slow harbour'),
    ]);
    const journal = ws.path('state', 'night.db');
    const run = startCli(
      ['run', manifest, '--state', journal, '--out', ws.path('out'), '--poll-interval', '0.05', '--progress', 'plain'],
      { cwd: ws.dir, env: gatewayEnv(sim.baseUrl, KEY) },
    );
    await run.stderrMatching(/waiting for video tasks .*rejected 1/);
    // What the CLI says meanwhile: refused, the journal held.
    expect((await runCli(['retry', '--state', journal, '--rejected'], { cwd: ws.dir })).code).toBe(73);

    const ui = await startUiChild(['--state-dir', ws.path('state'), '--allow-actions']);
    try {
      const get = (path: string) => fetch(new URL(path, ui.url), { headers: { accept: 'text/html', ...bearer() } });
      const key = /href="\/jobs\/([^"/?]+)"/.exec(await (await get('/')).text())![1]!;
      const live = await (await get(`/jobs/${key}`)).text();
      expect(live).not.toContain(`/jobs/${key}/confirm/retry-rejected`);
      expect(live).toContain(
        'No retry now: a run is live on this job (1 runner(s)): retry waits until it ends, as `gbatch retry` does',
      );
      const row = await (await get(`/jobs/${key}/rows/no`)).text();
      expect(row).not.toContain('confirm/retry-row');
      expect(row).toContain('No retry now: a run is live on this job');
      const confirm = await get(`/jobs/${key}/confirm/retry-rejected`);
      expect(confirm.status).toBe(409);
      expect(await confirm.text()).toMatch(/^not now: a run is live on this job/);
      const acted = await fetch(new URL(`/jobs/${key}/actions/retry-rejected`, ui.url), {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'confirm=yes',
      });
      expect(acted.status).toBe(409);

      // The run stopped (a second signal cuts the task's wait): the retry is offered again.
      run.child.kill('SIGINT');
      await run.stderrMatching(/signal again to cut/);
      run.child.kill('SIGINT');
      await run.result;
      const after = await (await get(`/jobs/${key}`)).text();
      expect(after).toContain(`/jobs/${key}/confirm/retry-rejected`);
      expect(after).not.toContain('No retry now');
    } finally {
      run.child.kill('SIGKILL');
      await ui.stop();
    }
  },
  30_000,
);
