// A row changed under an id the journal already holds refuses the whole run by default (a real question
// for the operator); with --skip-changed (a flag, or the job file's option) the changed rows are listed and
// left alone and the rest runs. The simulator's ledger proves what was sent: neither the changed row's old
// content nor its new content, every other row once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { BUILT, gatewayEnv, runCli, scanWorkerEnv, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const db = usePgSchema('gbatch_skipchanged');
const ADAPTERS = [
  { adapter: 'sqlite', skip: false, journal: (): string | undefined => undefined },
  { adapter: 'postgres', skip: !pgAvailable(), journal: (): string | undefined => db.url() },
];

describe.each(ADAPTERS)('$adapter journal', ({ adapter, skip, journal }) => {
  test.skipIf(!BUILT || skip)(
    '--skip-changed: the changed rows are listed and not sent, the rest runs, exit 0; without it the run is refused',
    async () => {
      const ws = workspace();
      const sim = await startSim();
      const env = gatewayEnv(sim.baseUrl, KEY);
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const job = `changed-${adapter}`;
      const manifest = ws.path('rows.jsonl');
      writeJsonl(manifest, [
        chatRow('keep', 'Say good morning.'),
        videoRow('waits', 'A kite over a beach'),
        videoRow('done', 'A boat at dawn'),
      ]);
      mkdirSync(ws.path('jobs'));
      const options = {
        'poll-interval': 0.05,
        out: '../out',
        'skip-changed': true,
        ...(journal() ? { journal: journal() } : {}),
      };
      const jobFile = `jobs/${job}.json`;
      const writeJob = (skipChanged: boolean) =>
        writeFileSync(
          ws.path(jobFile),
          JSON.stringify({ manifest: '../rows.jsonl', options: { ...options, 'skip-changed': skipChanged } }),
        );
      writeJob(true);

      // Loaded, not sent: `waits` is pending in the journal, with its old content.
      const loaded = await cli('run', jobFile, '--ingest-only', '--quiet');
      expect(loaded.code, loaded.stderr).toBe(0);
      // `done` goes through once, alone (the others changed nothing yet).
      writeJsonl(manifest, [videoRow('done', 'A boat at dawn')]);
      const first = await cli('run', jobFile, '--quiet');
      expect(first.code, first.stderr).toBe(0);
      expect(sim.ledger.submissionsByPrompt()).toEqual({ 'A boat at dawn': 1 });

      // Tonight's manifest: `waits` (pending) and `done` (downloaded) changed under their ids, two new rows.
      writeJsonl(manifest, [
        chatRow('keep', 'Say good morning.'),
        videoRow('waits', 'A kite over a canyon'),
        videoRow('done', 'A boat at dusk'),
        chatRow('new', 'Say thank you.'),
      ]);
      const requestsBefore = sim.ledger.requests.length;

      // Without the option: refused as always, nothing sent.
      writeJob(false);
      const refused = await cli('run', jobFile, '--quiet');
      writeJob(true);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(
        /rows\.jsonl:2 row 'waits': already in the journal .* give the changed row a new id/,
      );
      expect(sim.ledger.requests.length).toBe(requestsBefore);

      // plan honours the job file's option: the changed rows are listed, and they are no refusal.
      const plan = await cli('plan', jobFile);
      expect(plan.code, plan.stderr + plan.stdout).toBe(0);
      expect(plan.stdout).toContain("rows.jsonl:2 row 'waits': already in the journal");
      expect(plan.stdout).toContain("rows.jsonl:3 row 'done': already in the journal");
      expect(plan.stdout).toContain(
        '2 row(s) changed under an id the job already holds: `run` skips them and sends the rest (--skip-changed)',
      );
      const planJson = stdoutJson(await cli('plan', jobFile, '--json'));
      expect(planJson.skipped_changed).toHaveLength(2);
      expect(planJson.journal.remaining_rows).toBe(2); // keep and new

      // With the job file's option: listed at the start, left alone; the rest runs (the manifest read in the
      // scan worker, as a large manifest is).
      const night = await runCli(['run', jobFile, '--json', '--quiet'], {
        env: { ...env, ...scanWorkerEnv(1) },
        cwd: ws.dir,
      });
      expect(night.code, night.stderr).toBe(0);
      expect(night.stderr).toMatch(
        /rows\.jsonl:2 row 'waits': already in the journal \(from .*rows\.jsonl:2\) with different content; skipped \(--skip-changed\)/,
      );
      expect(night.stderr).toMatch(/rows\.jsonl:3 row 'done': .*skipped \(--skip-changed\)/);
      expect(night.stderr).toContain(
        "1 row(s) of the journal are in none of this run's manifests, or changed there and skipped (--skip-changed) (pending 1): not sent",
      );
      const summary = stdoutJson(night);
      expect(summary.ingest).toMatchObject({ skipped_changed: 2, conflicts: 0 });
      expect(summary.reason).toContain('2 changed row(s) skipped (--skip-changed)');
      // The ledger: keep and new sent once each; nothing of waits (neither its old nor its new content), nothing new of
      // done.
      expect(sim.ledger.submissionsByPrompt()).toEqual({
        'A boat at dawn': 1,
        'Say good morning.': 1,
        'Say thank you.': 1,
      });
      expect(duplicates(sim.ledger)).toEqual({});

      // The journal kept its rows as they were: waits pending with its old request, done downloaded.
      const report = stdoutJson(await cli('report', jobFile, '--format', 'json'));
      const byId = Object.fromEntries(report.items.map((i: { id: string }) => [i.id, i])) as Record<
        string,
        { state: string }
      >;
      expect(byId.waits!.state).toBe('pending');
      expect(byId.done!.state).toBe('downloaded');
      expect(byId.keep!.state).toBe('downloaded');
      expect(byId.new!.state).toBe('downloaded');
      const status = await cli('status', jobFile, '--json');
      expect(JSON.stringify(JSON.parse(status.stdout))).toContain('waits');

      // The next night, same manifest: listed again (the manifest is read again, not taken as known), still not sent.
      const again = await cli('run', jobFile, '--quiet');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/row 'waits': .*skipped \(--skip-changed\)/);
      expect(sim.ledger.submissionsByPrompt()).toEqual({
        'A boat at dawn': 1,
        'Say good morning.': 1,
        'Say thank you.': 1,
      });
      // And without the option, the same manifest is still refused: skipping once did not make the change known.
      writeJob(false);
      const stillRefused = await cli('run', jobFile, '--quiet');
      expect(stillRefused.code, stillRefused.stderr).toBe(2);
      expect(stillRefused.stderr).toMatch(/row 'waits': .*give the changed row a new id/);
      expect(sim.ledger.submissionsByPrompt()).toEqual({
        'A boat at dawn': 1,
        'Say good morning.': 1,
        'Say thank you.': 1,
      });
    },
  );
});

test.skipIf(!BUILT)(
  '--skip-changed beside --skip-invalid: an invalid row is recorded, a changed row skipped; the run exits 1 for the invalid row alone',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const cli = (...args: string[]) => runCli(args, { env: gatewayEnv(sim.baseUrl, KEY), cwd: ws.dir });
    writeJsonl(ws.path('m.jsonl'), [chatRow('a', 'First question.'), chatRow('b', 'Second question.')]);
    expect((await cli('run', 'm.jsonl', '--quiet')).code).toBe(0);
    writeJsonl(ws.path('m.jsonl'), [
      chatRow('a', 'First question, changed.'),
      chatRow('b', 'Second question.'),
      { id: 'bad', kind: 'chat' },
      chatRow('c', 'Third question.'),
    ]);
    const run = await cli('run', 'm.jsonl', '--skip-changed', '--skip-invalid', '--json', '--quiet');
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/m\.jsonl:1 row 'a': .*skipped \(--skip-changed\)/);
    expect(stdoutJson(run).counts).toMatchObject({ invalid: 1, downloaded: 3 });
    expect(sim.ledger.submissionsByPrompt()).toEqual({
      'First question.': 1,
      'Second question.': 1,
      'Third question.': 1,
    });
  },
);
