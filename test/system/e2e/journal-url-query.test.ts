// A job whose database URL says how to connect in its query (the schema by `options`, an application_name) and
// carries a password: the commands status suggests keep the query, leave the password out (the driver takes it
// from PGPASSWORD or ~/.pgpass; the test server trusts the user), and work pasted through `sh -c` with no
// PGOPTIONS or GBATCH_JOURNAL_URL of the operator's.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
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
    const commands = [...new Set([...suggested(status.stdout), ...suggested(run.stdout)])];
    const retry = commands.find((c) => c.startsWith('gbatch retry ') && c.endsWith(' --rejected'));
    expect(retry, status.stdout).toBeDefined();
    for (const command of commands) {
      expect(command).not.toContain(SECRET);
      expect(command).toContain('application_name=gbatch-night&options=');
    }
    // The schema is the URL's alone: the job is found there, read and acted on as pasted.
    for (const command of commands.filter((c) => c !== retry && !c.startsWith('gbatch run '))) {
      const pasted = await runAsPrinted(command, ws.dir, env);
      expect(pasted.code, `${command}: ${pasted.out}`).toBe(0);
    }
    const pasted = await runAsPrinted(retry!, ws.dir, env);
    expect(pasted.code, `${retry}: ${pasted.out}`).toBe(0);
    expect(await states()).toEqual({ ok: 'downloaded', no: 'pending' });
  },
  60_000,
);
