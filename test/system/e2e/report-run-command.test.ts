// Issue 32 item 2: the HTML report's `gbatch run` commands name what `run` takes (the job file or the one manifest
// the job's runs were started from), never the job's name (`report crash` suggested `gbatch run crash`) nor two
// manifests joined by a comma; each works as pasted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'report --format html: run commands by job name, by --state, of a job of two manifests',
  async () => {
    const ws = workspace();
    const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
    mkdirSync(ws.path('manifests'));
    mkdirSync(ws.path('jobs'));
    writeJsonl(ws.path('manifests', 'crash.jsonl'), [
      chatRow('ok', 'one'),
      chatRow('no', 'refused', { model: 'chat-large' }),
    ]);
    writeJsonl(ws.path('manifests', 'a.jsonl'), [chatRow('a1', 'one')]);
    writeJsonl(ws.path('manifests', 'b.jsonl'), [chatRow('b1', 'refused', { model: 'chat-large' })]);
    writeFileSync(
      ws.path('jobs', 'two.json'),
      JSON.stringify({ name: 'two', manifest: ['../manifests/a.jsonl', '../manifests/b.jsonl'] }),
    );
    expect((await cli('run', 'manifests/crash.jsonl', '--quiet')).code).toBe(1);
    expect((await cli('run', 'jobs/two.json', '--quiet')).code).toBe(1);

    const runs = async (...args: string[]) => {
      const page = await cli('report', ...args, '--format', 'html');
      expect(page.code, page.stderr).toBe(0);
      return [...new Set(suggested(pageText(page.stdout)).filter((c) => c.startsWith('gbatch run ')))];
    };
    expect(await runs('crash')).toEqual(['gbatch run manifests/crash.jsonl']);
    expect(await runs('--state', 'state/two.db')).toEqual(['gbatch run jobs/two.json']);
    expect(await runs('two')).toEqual(['gbatch run jobs/two.json']);
    for (const command of ['gbatch run manifests/crash.jsonl', 'gbatch run jobs/two.json']) {
      const pasted = await runAsPrinted(command, ws.dir, env);
      // The refused row is refused again: exit 1, not 2 (a bad argument).
      expect(pasted.code, `${command}:\n${pasted.out}`).toBe(1);
    }
  },
);

/** The text of an HTML page as a browser shows it: tags gone, entities decoded. */
function pageText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };
  return html.replace(/<[^>]+>/g, '\n').replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => entities[name]!);
}
