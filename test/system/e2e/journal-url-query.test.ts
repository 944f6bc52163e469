// A job whose database URL says how to connect in its query (the schema by `options`, an application_name) and
// carries a password: the commands status, the run and the dashboard's job page suggest keep the query, leave the
// password out (the driver takes it from PGPASSWORD or ~/.pgpass; the test server trusts the user), and work
// pasted through `sh -c` with no PGOPTIONS or GBATCH_JOURNAL_URL of the operator's.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { bearer, startUiChild } from '../../helpers/ui.js';
import { workspace } from '../../helpers/workspace.js';

const pg = usePgSchema('gbatch_urlq');
const SECRET = 'Nightshift7';

test.skipIf(!BUILT || !pgAvailable())(
  "a database URL's query goes into the commands to paste, its password does not",
  async () => {
    const ws = workspace();
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const withPassword = PG_TEST_URL.replace('://postgres@', `://postgres:${SECRET}@`);
    expect(withPassword).toContain(SECRET);
    const url = `${withPassword}?application_name=gbatch-night&options=${encodeURIComponent(`-c search_path=${pg.schema}`)}`;
    const manifest = writeJsonl(ws.path('night.jsonl'), [
      chatRow('ok', 'Name a star.'),
      chatRow('no', 'A model this key may not use', { model: 'chat-large' }),
    ]);
    const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
    const run = await cli('run', manifest, '--journal', url, '--retry-failed', '0');
    expect(run.code, run.stderr).toBe(1);
    const states = async () => {
      const report = await cli('report', 'night', '--journal', url, '--format', 'json');
      expect(report.code, report.stderr).toBe(0);
      const items = (JSON.parse(report.stdout) as { items: Array<{ id: string; state: string }> }).items;
      return Object.fromEntries(items.map((i) => [i.id, i.state]));
    };
    expect(await states()).toEqual({ ok: 'downloaded', no: 'rejected' });

    const status = await cli('status', 'night', '--journal', url);
    expect(status.code, status.stderr).toBe(0);
    const ui = await startUiChild(['--journal', url], { cwd: ws.dir, env });
    let page: string;
    try {
      const res = await fetch(`${ui.url}jobs/night`, { headers: bearer() });
      expect(res.status).toBe(200);
      page = (await res.text())
        .replace(/<[^>]+>/g, '\n')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    } finally {
      await ui.stop();
    }
    const commands = [...new Set([...suggested(status.stdout), ...suggested(run.stdout), ...suggested(page)])];
    expect(suggested(page).length).toBeGreaterThan(0);
    const retry = commands.find((c) => c.startsWith('gbatch retry ') && c.endsWith(' --rejected'));
    expect(retry, status.stdout).toBeDefined();
    for (const command of commands) {
      expect(command).not.toContain(SECRET);
      expect(command).toContain('application_name=gbatch-night&options=');
    }
    // The schema is the URL's alone: the job is found there and acted on as pasted, from the page, then from status.
    const fromPage = suggested(page).find((c) => c.startsWith('gbatch retry '));
    expect(fromPage, page).toBeDefined();
    for (const command of [fromPage!, retry!]) {
      const pasted = await runAsPrinted(command, ws.dir, env);
      expect(pasted.code, `${command}: ${pasted.out}`).toBe(0);
      expect(await states()).toEqual({ ok: 'downloaded', no: 'pending' });
      // The next run refuses the row again: it waits for the other surface's command.
      expect((await cli('run', manifest, '--journal', url, '--retry-failed', '0')).code).toBe(1);
      expect(await states()).toEqual({ ok: 'downloaded', no: 'rejected' });
    }
  },
  60_000,
);
