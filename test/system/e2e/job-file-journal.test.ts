// A job file stands for its journal everywhere: every command given jobs/<name>.json uses the journal
// its run uses (the job file's `journal` option: a PostgreSQL URL or a path), and every command gbatch
// suggests names the job as it was started and works when pasted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { startHook } from '../../helpers/webhook-server.js';
import { BUILT, gatewayEnv, runCli, type CliResult } from '../../helpers/cli.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

// A journal per test: each runs the job `nightly` from its start, whatever another left in its journal.
const pg = {
  commands: usePgSchema('gbatch_jobref'),
  suggested: usePgSchema('gbatch_jobref'),
  notified: usePgSchema('gbatch_jobref'),
};
/** A test spawns the CLI up to ~15 times; on a host loaded 12x over its cores each spawn took ~5 s. */
const SPAWNING_TEST_MS = 180_000;

/**
 * A job whose video row fails upstream and whose chat-large row is refused: both wait for `retry` (no retry policy).
 */
async function ranJob(
  ws: Workspace,
  journal: string | undefined,
  notify?: string,
): Promise<{ env: Record<string, string>; cli: (...args: string[]) => Promise<CliResult> }> {
  const sim = await startSim({
    accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
    faults: { failRate: 1 },
    taskSeconds: 0.05,
  });
  const env = gatewayEnv(sim.baseUrl, KEY);
  writeJsonl(ws.path('rows.jsonl'), [
    videoRow('v1', 'clip one'),
    chatRow('ok', 'a fine question'),
    chatRow('no', 'a forbidden question', { model: 'chat-large' }),
  ]);
  mkdirSync(ws.path('jobs'));
  const options = {
    'poll-interval': 0.05,
    'retry-failed': 0,
    out: '../out',
    ...(journal ? { journal } : {}),
    ...(notify ? { notify: [notify] } : {}),
  };
  writeFileSync(ws.path('jobs', 'nightly.json'), JSON.stringify({ manifest: '../rows.jsonl', options }));
  const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
  const run = await cli('run', 'jobs/nightly.json', '--quiet');
  expect(run.code, run.stderr).toBe(1);
  return { env, cli };
}

for (const on of ['postgres', 'sqlite'] as const) {
  test.skipIf(!BUILT || (on === 'postgres' && !pgAvailable()))(
    `${on}: status, report, plan, retry, resolve and cancel given the job file use its journal`,
    async () => {
      const ws = workspace();
      const { cli } = await ranJob(ws, on === 'postgres' ? pg.commands.url() : '../journals/nightly.db');
      const where = on === 'postgres' ? /postgres:\/\// : /journals\/nightly\.db/;

      const [status, report, plan] = await Promise.all([
        cli('status', 'jobs/nightly.json', '--json'),
        cli('report', 'jobs/nightly.json', '--format', 'json'),
        cli('plan', 'jobs/nightly.json', '--json'),
      ]);
      expect(JSON.parse(status.stdout)).toMatchObject({ job: 'nightly' });
      expect(report.code, report.stderr).toBe(0);
      expect(JSON.parse(plan.stdout).journal.state).toMatch(where);

      const retried = await cli('retry', 'jobs/nightly.json', '--rejected');
      expect(retried.code, retried.stderr).toBe(0);
      expect(retried.stdout).toMatch(where);
      expect(retried.stdout).toContain('requeued 1 item(s): no');
      const abandoned = await cli('resolve', 'jobs/nightly.json', 'no', '--abandon');
      expect(abandoned.code, abandoned.stderr).toBe(0);
      const cancelled = await cli('cancel', 'jobs/nightly.json', '--wait', '0');
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.stdout).toMatch(where);
      expect(cancelled.stdout).toContain('gbatch retry jobs/nightly.json --cancelled');
    },
    SPAWNING_TEST_MS,
  );

  test.skipIf(!BUILT || (on === 'postgres' && !pgAvailable()))(
    `${on}: the commands status, the HTML report and run suggest work as printed`,
    async () => {
      const ws = workspace();
      const { env, cli } = await ranJob(ws, on === 'postgres' ? pg.suggested.url() : undefined);
      // The standing, as status --json and the report's table and json give it, suggests its commands too.
      const [status, html, json, table, reportJson] = await Promise.all([
        cli('status', 'jobs/nightly.json'),
        cli('report', 'jobs/nightly.json', '--format', 'html'),
        cli('status', 'jobs/nightly.json', '--json'),
        cli('report', 'jobs/nightly.json'),
        cli('report', 'jobs/nightly.json', '--format', 'json'),
      ]);
      expect(html.code, html.stderr).toBe(0);
      const standing = (text: string) => JSON.stringify((JSON.parse(text) as { standing: unknown }).standing, null, 1);
      const commands = [
        ...new Set([
          ...suggested(status.stdout),
          ...suggested(html.stdout.replace(/<[^>]+>/g, '\n')),
          ...suggested(standing(json.stdout)),
          ...suggested(table.stdout),
          ...suggested(standing(reportJson.stdout)),
        ]),
      ];
      expect(suggested(standing(json.stdout)), standing(json.stdout)).toContain(
        'gbatch retry jobs/nightly.json --failed',
      );
      expect(commands).toContain('gbatch retry jobs/nightly.json --failed');
      expect(commands).toContain('gbatch run jobs/nightly.json');
      // Those naming an item first: a bulk retry after them finds nothing left, which is no failure.
      const itemFirst = (c: string) => (/^gbatch \w+ \S+ -/.test(c) ? 1 : 0) + (c.startsWith('gbatch run ') ? 2 : 0);
      for (const command of commands.sort((a, b) => itemFirst(a) - itemFirst(b))) {
        expect(command).toMatch(/^gbatch \w+ jobs\/nightly\.json/);
        const pasted = await runAsPrinted(command, ws.dir, env);
        // A run that ends with rows the gateway refused again exits 1 (finished, some failed): it worked.
        expect(pasted.code, `${command}: ${pasted.out}`).toBe(command.startsWith('gbatch run ') ? 1 : 0);
        for (const advice of command.startsWith('gbatch run ') ? suggested(pasted.out) : [])
          expect(advice).toMatch(/^gbatch \w+ jobs\/nightly\.json/);
      }
    },
    SPAWNING_TEST_MS,
  );
}

test.skipIf(!BUILT || !pgAvailable())(
  'postgres: the commands a notification suggests work as printed',
  async () => {
    const ws = workspace();
    const hook = await startHook([]);
    const { env } = await ranJob(ws, pg.notified.url(), hook.url);
    const body = hook.received.map((r) => r.body).find((b) => b.event === 'run-ended');
    const commands = suggested((body.attention as string[]).join('\n'));
    expect(commands).toEqual(
      expect.arrayContaining(['gbatch retry jobs/nightly.json --failed', 'gbatch retry jobs/nightly.json --rejected']),
    );
    for (const command of commands) {
      const pasted = await runAsPrinted(command, ws.dir, env);
      expect(pasted.code, `${command}: ${pasted.out}`).toBe(0);
    }
  },
  SPAWNING_TEST_MS,
);

test.skipIf(!BUILT)(
  'retry and cancel without a job refuse and list the journals; cancel takes the job beside --state',
  async () => {
    const ws = workspace();
    const { cli } = await ranJob(ws, undefined);
    const [retry, cancel] = await Promise.all([cli('retry', '--failed'), cli('cancel')]);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain('name the job');
    expect(retry.stderr).toContain('state/nightly.db');
    expect(cancel.code).toBe(2);
    expect(cancel.stderr).toContain('name the job');
    const named = await cli('cancel', 'nightly', '--state', 'state/nightly.db', '--wait', '0');
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('journal state/nightly.db (job nightly)');
  },
  SPAWNING_TEST_MS,
);

test.skipIf(!BUILT)("plan honours the job file's skip-invalid: invalid rows are counted, not a refusal", async () => {
  const ws = workspace();
  writeJsonl(ws.path('rows.jsonl'), [chatRow('ok', 'a fine question'), { id: 'bad', kind: 'chat' }]);
  mkdirSync(ws.path('jobs'));
  writeFileSync(
    ws.path('jobs', 'x.json'),
    JSON.stringify({ manifest: '../rows.jsonl', options: { 'skip-invalid': true } }),
  );
  const plan = await runCli(['plan', 'jobs/x.json'], { cwd: ws.dir });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('1 invalid row(s): `run` records them as invalid and sends the rest');
});
