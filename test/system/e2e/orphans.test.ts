// Issue 19 item 2: the manifests of a run say what is wanted. Rows of the journal that no manifest of the
// run lists any more (deferred on the budget last night, an invalid line deleted since) are not sent and
// do not decide the exit code; `status` lists them with commands that send them (`retry`) or remove them
// (`forget`), and `plan` counts exactly the rows `run` sends. The simulator's ledger is the proof.
import { describe, expect, test } from 'vitest';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, type CliResult } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const db = usePgSchema('gbatch_orphans');
const ADAPTERS = [
  { adapter: 'sqlite', skip: false, journalEnv: (): Record<string, string> => ({}) },
  // The job's journal on PostgreSQL for every command, as GBATCH_JOURNAL_URL gives it: the advice names the job.
  {
    adapter: 'postgres',
    skip: !pgAvailable(),
    journalEnv: (): Record<string, string> => ({ GBATCH_JOURNAL_URL: db.url() }),
  },
];

const IDS = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
const prompt = (id: string) => `A slow pan across scene ${id}`;
const rows = (ids: readonly string[]) => ids.map((id) => videoRow(id, prompt(id)));

/** The command a `status` line suggests (`  to ...: gbatch <args>`), as a shell would split it. */
function suggested(status: CliResult, lead: string): string[] {
  const line = status.stdout.split('\n').find((l) => l.startsWith(`  ${lead}: gbatch `));
  expect(line, status.stdout).toBeDefined();
  // The command ends where two spaces set what follows apart.
  return line!
    .slice(`  ${lead}: gbatch `.length)
    .split(/\s{2,}/)[0]!
    .split(' ');
}

describe.each(ADAPTERS)('$adapter journal', ({ skip, journalEnv }) => {
  test.skipIf(!BUILT || skip)(
    "rows deferred last night that tonight's manifest no longer lists are not sent: plan and run agree row for row, the ledger within the budget",
    async () => {
      const ws = workspace();
      const sim = await startSim();
      const env = { ...gatewayEnv(sim.baseUrl, KEY), ...journalEnv() };
      const states = (report: CliResult) =>
        Object.fromEntries(stdoutJson(report).items.map((i: { id: string; state: string }) => [i.id, i.state]));
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const manifest = ws.path('night.jsonl');
      const tasksOf = (ids: readonly string[]) =>
        sim.ledger.tasks.filter((t) => ids.some((id) => t.prompt === prompt(id))).length;

      // Night 1: a budget with room for two rows; the other eight are deferred.
      writeJsonl(manifest, rows(IDS));
      const plan1 = stdoutJson(await cli('plan', 'night.jsonl', '--json'));
      const perRow = plan1.max_usd / IDS.length;
      const night1Budget = Number((perRow + 1.5 * (plan1.estimated_usd / IDS.length)).toFixed(6));
      const night1 = await cli(
        'run',
        'night.jsonl',
        '--budget',
        String(night1Budget),
        '--poll-interval',
        '0.05',
        '--quiet',
        '--json',
      );
      expect(night1.code, night1.stderr).toBe(3);
      expect(stdoutJson(night1).counts).toMatchObject({ downloaded: 2, deferred: 8 });
      expect(sim.ledger.tasks).toHaveLength(2);

      // Night 2: the manifest holds three of the deferred rows, and a budget with room for every row.
      const wanted = ['v3', 'v4', 'v5'];
      writeJsonl(manifest, rows(wanted));
      const budget = Number((night1Budget + perRow * 20).toFixed(6));
      const plan2 = await cli('plan', 'night.jsonl', '--budget', String(budget), '--json');
      expect(plan2.code, plan2.stderr).toBe(0);
      expect(stdoutJson(plan2).journal.remaining_rows).toBe(wanted.length);
      const night2 = await cli('run', 'night.jsonl', '--budget', String(budget), '--poll-interval', '0.05', '--json');
      // What plan counted is what left, row for row: the three rows of the manifest, none of the five others.
      expect(tasksOf(['v6', 'v7', 'v8', 'v9', 'v10'])).toBe(0);
      expect(sim.ledger.tasks).toHaveLength(2 + stdoutJson(plan2).journal.remaining_rows);
      expect(tasksOf(wanted)).toBe(wanted.length);
      // The orphaned deferred rows neither defer nor fail this run: it did all it was asked.
      expect(night2.code, night2.stderr).toBe(0);
      expect(night2.stderr).toMatch(
        /5 row\(s\) of the journal are in none of this run's manifests \(deferred 5\): not sent/,
      );
      expect(duplicates(sim.ledger)).toEqual({});
      expect(sim.ledger.chargesTotal('acct-1')).toBeLessThanOrEqual(budget);
      const [report, statusJsonRead, status] = await Promise.all([
        cli('report', 'night', '--format', 'json'),
        cli('status', 'night', '--json'),
        cli('status', 'night'),
      ]);
      expect(stdoutJson(report).totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
      expect(states(report)).toMatchObject({
        v3: 'downloaded',
        v4: 'downloaded',
        v5: 'downloaded',
        v6: 'deferred',
        v10: 'deferred',
      });

      // Status lists them, with their states, and a command to send them that works as printed.
      const statusJson = stdoutJson(statusJsonRead);
      expect(statusJson.orphaned).toMatchObject({ count: 5, by_state: { deferred: 5 } });
      expect(statusJson.orphaned.items.map((i: { id: string }) => i.id)).toEqual(['v6', 'v7', 'v8', 'v9', 'v10']);
      expect(statusJson.would_exit).toBe(0);
      expect(status.stdout).toContain(
        "orphaned (5: deferred 5): in none of the manifests of the job's last run, or changed in one and skipped (--skip-changed): no run sends them on its own",
      );
      const retry = await cli(...suggested(status, 'to send them all the same'));
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.stdout).toContain(
        "5 of them orphaned (in none of the job's manifests, or changed in one and skipped): sent all the same, as asked, one changed in its manifest with the manifest's new content: v6, v7, v8, v9, v10",
      );

      // Adopted by the operator, they are sent by the next run on the same manifest: plan counts them first.
      const plan3 = stdoutJson(await cli('plan', 'night.jsonl', '--json'));
      expect(plan3.journal.remaining_rows).toBe(5);
      const night3 = await cli('run', 'night.jsonl', '--poll-interval', '0.05', '--json');
      expect(night3.code, night3.stderr).toBe(0);
      expect(sim.ledger.tasks).toHaveLength(2 + 3 + plan3.journal.remaining_rows);
      expect(duplicates(sim.ledger)).toEqual({});
      expect(sim.ledger.chargesTotal('acct-1')).toBeLessThanOrEqual(budget);
      const [statusEnd, reportEnd] = await Promise.all([
        cli('status', 'night', '--json'),
        cli('report', 'night', '--format', 'json'),
      ]);
      expect(stdoutJson(statusEnd).orphaned.count).toBe(0);
      expect(states(reportEnd)).toMatchObject({ v6: 'downloaded', v10: 'downloaded' });
    },
    300_000,
  );
});

test.skipIf(!BUILT)(
  'an invalid line deleted from the manifest is orphaned, not a failure of the run; forget removes it as status prints',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const env = gatewayEnv(sim.baseUrl, KEY);
    const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
    const manifest = ws.path('night.jsonl');

    writeJsonl(manifest, [chatRow('r1', 'Name a river.'), { id: 'r2', kind: 'chat', model: 'chat-small' }]);
    const first = await cli('run', 'night.jsonl', '--skip-invalid', '--quiet', '--json');
    expect(first.code, first.stderr).toBe(1);
    expect(statesById(ws.path('state', 'night.db'))).toEqual({ r1: 'downloaded', r2: 'invalid' });

    // The malformed line is deleted: the run has nothing left that failed.
    writeJsonl(manifest, [chatRow('r1', 'Name a river.'), chatRow('r3', 'Name a lake.')]);
    const second = await cli('run', 'night.jsonl', '--quiet', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(sim.ledger.requests.filter((r) => r.method === 'POST')).toHaveLength(2);

    const status = await cli('status', 'night');
    expect(status.stdout).toContain('orphaned (1: invalid 1)');
    const forget = await cli(...suggested(status, 'to remove those never sent'));
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toContain('removed 1 orphaned item(s) from the journal: r2');
    expect(statesById(ws.path('state', 'night.db'))).toEqual({ r1: 'downloaded', r3: 'downloaded' });
    expect(stdoutJson(await cli('status', 'night', '--json')).orphaned.count).toBe(0);

    // A row a manifest lists, or one that was sent, is never removed.
    // --journal naming the SQLite file takes every positional as an id, as --state does.
    const [listed, byFile] = await Promise.all([
      cli('forget', 'night', 'r1'),
      cli('forget', '--journal', 'state/night.db', 'r1'),
    ]);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain("item 'r1' is in the job's manifests");
    expect(byFile.code).toBe(2);
    expect(byFile.stderr).toContain("item 'r1' is in the job's manifests");
  },
  120_000,
);
