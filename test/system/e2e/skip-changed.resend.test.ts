// A row edited in its manifest after it ended (or while it waited) and skipped with --skip-changed: no
// night sends it on its own, and every surface says so and gives the one command that has the next run
// send the new content. The command is pasted as printed (`sh -c`); the simulator's ledger shows the
// edited prompt sent once, the old one never again, and the report books what the gateway took.
import { describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson, type CliResult } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';

const db = usePgSchema('gbatch_resendchanged');
const ADAPTERS = [
  { adapter: 'sqlite', skip: false, journalEnv: (): Record<string, string> => ({}) },
  // The URL from the environment: a command printed for it names no URL, so it pastes as printed.
  { adapter: 'postgres', skip: !pgAvailable(), journalEnv: () => ({ GBATCH_JOURNAL_URL: db.url() }) },
];

/** The one suggested command on the line that starts with `lead`. */
function commandAfter(text: string, lead: string): string {
  const line = text.split('\n').find((l) => l.trimStart().startsWith(lead));
  expect(line, `no line starting '${lead}' in:\n${text}`).toBeDefined();
  const [command] = suggested(line!);
  expect(command).toBeDefined();
  return command!;
}

describe.each(ADAPTERS)('$adapter journal', ({ adapter, skip, journalEnv }) => {
  test.skipIf(!BUILT || skip)(
    'a failed row edited and skipped: each night exits 0 and says nothing of it is sent; its one command sends the new content',
    async () => {
      const ws = workspace();
      const sim = await startSim();
      const env = { ...gatewayEnv(sim.baseUrl, KEY), ...journalEnv() };
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const manifest = `night-${adapter}.jsonl`;
      const job = `night-${adapter}`;
      const night = (): Promise<CliResult> =>
        cli('run', manifest, '--skip-changed', '--retry-failed', '0', '--poll-interval', '0.05');
      writeJsonl(ws.path(manifest), [videoRow('v1', 'A kite over a beach'), chatRow('c1', 'Say good morning.')]);
      sim.faults.failRate = 1;
      const first = await night();
      expect(first.code, first.stderr).toBe(1);
      sim.faults.failRate = 0;

      // The operator edits the failed row: every night from now on skips it, exits 0, sends nothing of it (this
      // night and the one after status below).
      writeJsonl(ws.path(manifest), [videoRow('v1', 'A kite over a canyon'), chatRow('c1', 'Say good morning.')]);
      const skippedNight = async (): Promise<CliResult> => {
        const skipped = await night();
        expect(skipped.code, skipped.stderr).toBe(0);
        expect(skipped.stdout).toContain(
          "1 changed row(s) skipped (--skip-changed): no run sends them on its own, neither the journal's content nor the manifest's new one",
        );
        expect(sim.ledger.submissionsByPrompt()).toEqual({ 'A kite over a beach': 1, 'Say good morning.': 1 });
        return skipped;
      };
      await skippedNight();

      // status says the same, and gives the same one command (text and JSON).
      const [status, statusJson] = await Promise.all([cli('status', job), cli('status', job, '--json')]);
      expect(status.stdout).toContain('unless it is orphaned (below)');
      expect(status.stdout).toContain(
        "orphaned (1: failed 1): in none of the manifests of the job's last run, or changed in one and skipped (--skip-changed): no run sends them on its own",
      );
      expect(commandAfter(status.stdout, 'to send them all the same:')).toBe(`gbatch retry ${job} v1`);
      expect(stdoutJson(statusJson).orphaned.send).toBe(`gbatch retry ${job} v1`);

      // The run's last lines give the command as the run was started; pasted, it works.
      const last = await skippedNight();
      const command = commandAfter(last.stdout, 'to send the new content:');
      expect(command).toBe(`gbatch retry ${manifest} v1`);
      const pasted = await runAsPrinted(command, ws.dir, env);
      expect(pasted.code, pasted.out).toBe(0);
      expect(pasted.out).toContain("one changed in its manifest with the manifest's new content: v1");

      // The next night sends the new content, once; the old content is never sent again.
      const resent = await night();
      expect(resent.code, resent.stderr).toBe(0);
      expect(resent.stdout).not.toContain('changed row(s) skipped');
      expect(sim.ledger.submissionsByPrompt()).toEqual({
        'A kite over a beach': 1,
        'A kite over a canyon': 1,
        'Say good morning.': 1,
      });
      expect(duplicates(sim.ledger)).toEqual({});
      const [reportRead, statusAfter] = await Promise.all([
        cli('report', job, '--format', 'json'),
        cli('status', job, '--json'),
      ]);
      const report = stdoutJson(reportRead);
      expect(report.items.find((i: { id: string }) => i.id === 'v1')).toMatchObject({
        state: 'downloaded',
        attempts: 2,
      });
      expect(report.totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
      expect(report.totals.reserved_usd).toBe(0);
      expect(stdoutJson(statusAfter).orphaned.count).toBe(0);
    },
    120_000,
  );

  test.skipIf(!BUILT || skip)(
    'a waiting row edited and skipped: status\'s command (`retry <id>`, "sent all the same, as asked") sends the new content, not the old',
    async () => {
      const ws = workspace();
      const sim = await startSim();
      const env = { ...gatewayEnv(sim.baseUrl, KEY), ...journalEnv() };
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const manifest = `waits-${adapter}.jsonl`;
      const job = `waits-${adapter}`;
      writeJsonl(ws.path(manifest), [videoRow('w1', 'A boat at dawn')]);
      expect((await cli('run', manifest, '--ingest-only', '--quiet')).code).toBe(0);
      writeJsonl(ws.path(manifest), [videoRow('w1', 'A boat at dusk')]);
      const night = () => cli('run', manifest, '--skip-changed', '--poll-interval', '0.05', '--quiet');
      expect((await night()).code).toBe(0);
      expect(sim.ledger.submissionsByPrompt()).toEqual({});

      const status = await cli('status', job);
      const pasted = await runAsPrinted(commandAfter(status.stdout, 'to send them all the same:'), ws.dir, env);
      expect(pasted.code, pasted.out).toBe(0);
      const resent = await night();
      expect(resent.code, resent.stderr).toBe(0);
      expect(sim.ledger.submissionsByPrompt()).toEqual({ 'A boat at dusk': 1 });
    },
    120_000,
  );
});
