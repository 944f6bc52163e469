// A runner frozen (SIGSTOP) with video submissions on the wire loses its lease: another runner makes those
// rows uncertain and finishes the rest. Resumed (SIGCONT), the frozen runner reads the gateway's answers:
// the journal refuses them (the rows are not its own any more), but their task ids are not thrown away.
// It notes them in the journal's event log, names them, and prints for each the `gbatch resolve --task-id`
// command; the commands, pasted, give each row its task, and the next run downloads it: one task per row.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { assertBuilt, describeEnd } from '../../helpers/crash/gbatch-child.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import {
  freezePastLease,
  pasteThenRunAgain,
  printedResolveCommands,
  startScene,
  stoppableRunners,
} from '../../helpers/frozen-past-lease.js';
import { readReport } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-unrecorded';
const ROWS = 10;
const IN_FLIGHT = 4;

const runners = stoppableRunners('gbatch-unrecorded-');

describe.skipIf(!pgAvailable())('a runner frozen past its lease with tasks on the wire', () => {
  const db = usePgSchema('gbatch_multi_unrecorded');

  test('resumed, it keeps the task ids the journal refused: noted in the event log, and resolve commands that work when pasted', async () => {
    assertBuilt();
    const manifest = writeJsonl(
      join(runners.dir, 'unrecorded.jsonl'),
      Array.from({ length: ROWS }, (_, i) => videoRow(`v-${i}`, `unrecorded clip ${i}`)),
    );
    const scene = await startScene({
      runners,
      journalUrl: db.url(),
      apiKey: API_KEY,
      simulator: { seed: 9, taskSeconds: 0.2 },
      runArgs: [
        'run',
        manifest,
        '--out',
        join(runners.dir, 'out'),
        '--poll-interval',
        '0.05',
        '--concurrency',
        String(IN_FLIGHT),
        '--quiet',
      ],
    });
    const { sim, gateway } = scene;
    try {
      const resumed = await freezePastLease(sim, IN_FLIGHT, scene.run);

      // Every row the other runner found uncertain has a task upstream, and the resumed runner names it.
      const before = await readReport('unrecorded', db.url(), gateway);
      const uncertain = before.items.filter((i) => i.state === 'uncertain');
      expect(uncertain.length, describeEnd('the resumed runner', resumed)).toBeGreaterThan(0);
      const upstream = new Map(sim.ledger.tasks.map((t) => [t.prompt, t.id]));
      const commands = printedResolveCommands(resumed, /^gbatch resolve \S+ (\S+) --task-id (\S+)$/).map(
        ({ line, values: [id, taskId] }) => ({ line, id: id!, taskId: taskId! }),
      );
      expect(commands.map((c) => c.id).sort(), describeEnd('the resumed runner', resumed)).toEqual(
        uncertain.map((i) => i.id).sort(),
      );
      for (const { id, taskId } of commands)
        expect(taskId, `item ${id}`).toBe(upstream.get(`unrecorded clip ${id.slice(2)}`));
      expect(resumed.stderr).toMatch(
        new RegExp(`${commands.length} task\\(s\\) were accepted by the gateway \\(and may be billed\\) after that`),
      );

      // The journal's event log has them too.
      const notes = await db.query<{ item_id: string; detail: string }>(
        `SELECT item_id, detail FROM events WHERE event = 'task-unrecorded' ORDER BY item_id`,
      );
      expect(notes.rows.map((r) => [r.item_id, (JSON.parse(r.detail) as { taskId: string }).taskId])).toEqual(
        commands.map((c) => [c.id, c.taskId]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );

      const after = await pasteThenRunAgain(scene, commands, 'unrecorded');
      // One task per row: nothing was sent twice, and every task the gateway billed is a row's.
      expect(sim.ledger.tasks).toHaveLength(ROWS);
      expect(after.items.map((i) => i.task_id).sort()).toEqual(sim.ledger.tasks.map((t) => t.id).sort());
    } finally {
      await sim.close();
    }
  }, 90_000);
});
