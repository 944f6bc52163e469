// The journal deleted or replaced under a live run: the run stops sending at once, lets the requests in
// flight finish into the (still open) journal, saves that journal beside the path under a new name,
// lists the task ids, and exits 2. Moved back, the saved journal resumes without sending anything twice.
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const VIDEOS = 6;

async function loseJournalMidRun(how: 'deleted' | 'replaced') {
  const ws = workspace();
  // Slow submissions one at a time, and tasks that outlast the test: the run is mid-campaign when the
  // journal goes, and whatever it sends after noticing shows up in the ledger.
  const sim = await startSim({ taskSeconds: 60, faults: { latencyMs: 120 } });
  const env = gatewayEnv(sim.baseUrl, KEY);
  const rows = Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A lighthouse, take ${i}`));
  const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
  const args = [
    'run',
    manifest,
    '--state',
    ws.state,
    '--out',
    ws.out,
    '--poll-interval',
    '0.2',
    '--concurrency',
    '1',
    '--quiet',
    '--json',
  ];
  const run = startCli(args, { env });
  await sim.ledger.reached((ledger) => posts(ledger) >= 2);

  if (how === 'deleted') rmSync(ws.state);
  else {
    writeFileSync(ws.path('other.db'), "another file, not this run's journal");
    renameSync(ws.path('other.db'), ws.state);
  }
  await run.stderrMatching(new RegExp(`journal at .* was ${how} .*while running: stopping all submissions now`));
  const postsAtDetection = posts(sim.ledger);
  const ended = await run.result;
  return { ws, sim, env, args, ended, postsAtDetection };
}

function recoveredCopies(state: string): string[] {
  return readdirSync(dirname(state))
    .filter((name) => name.includes('.recovered-'))
    .map((name) => join(dirname(state), name));
}

for (const how of ['deleted', 'replaced'] as const) {
  test.skipIf(!BUILT)(
    `journal ${how} mid-run: exit 2, task ids listed, the journal saved; moved back, nothing is sent twice`,
    async () => {
      const { ws, sim, env, args, ended, postsAtDetection } = await loseJournalMidRun(how);
      expect(ended.code, ended.stderr).toBe(2);
      expect(ended.stderr).not.toMatch(/internal error|a new run resumes/);
      // Nothing new after the detection: at most the one request already on the wire (--concurrency 1).
      expect(posts(sim.ledger)).toBeLessThanOrEqual(postsAtDetection + 1);
      expect(posts(sim.ledger)).toBeLessThan(VIDEOS);

      const [copy, ...more] = recoveredCopies(ws.state);
      expect(more).toEqual([]);
      expect(ended.stderr).toContain(`the run's journal was saved to ${copy}`);
      expect(stdoutJson(ended)).toMatchObject({
        exit_code: 2,
        stop_reason: 'journal-lost',
        journal_lost: { saved_copy: copy },
      });
      const saved = openSqliteFile(copy!, { readonly: true });
      const sent = saved
        .prepare('SELECT id, task_id FROM items WHERE task_id IS NOT NULL ORDER BY seq')
        .all() as Array<{ id: string; task_id: string }>;
      const lock = saved.prepare('SELECT * FROM runner_lock').all();
      saved.close();
      // Every task the gateway accepted is in the saved journal, and named in the message.
      expect(sent.map((r) => r.task_id).sort()).toEqual(sim.ledger.tasks.map((t) => t.id).sort());
      expect(sent.length).toBeGreaterThan(0);
      for (const { id, task_id } of sent) expect(ended.stderr).toContain(`${id} -> ${task_id}`);
      expect(lock).toEqual([]);

      // The operator follows the advice: the replacement aside, the saved journal back in its place.
      if (how === 'replaced') renameSync(ws.state, ws.path('replacement.db'));
      expect(existsSync(`${ws.state}-wal`)).toBe(false);
      renameSync(copy!, ws.state);
      const tasksBefore = sim.ledger.tasks.length;
      const rerun = await runCli([...args, '--no-wait'], { env });
      expect(rerun.code, rerun.stderr).toBe(75);
      expect(duplicates(sim.ledger)).toEqual({});
      expect(sim.ledger.tasks).toHaveLength(VIDEOS); // the rest were sent once, the first ones not again
      expect(tasksBefore).toBe(sent.length);
    },
  );
}
