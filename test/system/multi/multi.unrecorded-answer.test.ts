// A runner frozen (SIGSTOP) with chat requests on the wire loses its lease: another runner makes those rows
// uncertain and finishes the rest. Resumed (SIGCONT), the frozen runner reads the gateway's answers, billed:
// the journal refuses them as the rows' own, but they are not thrown away. It notes each answer whole in the
// journal's event log and prints for each the `gbatch resolve --recorded-answer` command; the commands,
// pasted, settle each row from its answer, and the next run writes them out: nothing is sent twice.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { assertBuilt, describeEnd, runPasted } from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import {
  freezePastLease,
  pasteThenRunAgain,
  printedResolveCommands,
  startScene,
  stoppableRunners,
} from '../../helpers/frozen-past-lease.js';
import { readReport } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-unrecorded-answer';
const ROWS = 10;
const IN_FLIGHT = 4;

const runners = stoppableRunners('gbatch-unrecorded-answer-');

describe.skipIf(!pgAvailable())('a runner frozen past its lease with chat answers on the wire', () => {
  const db = usePgSchema('gbatch_multi_unrecorded_answer');

  test('resumed, it keeps the answers the journal refused: noted whole in the event log, and resolve commands that settle the rows when pasted', async () => {
    assertBuilt();
    const manifest = writeJsonl(
      join(runners.dir, 'answers.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`c-${i}`, `unrecorded answer ${i}`)),
    );
    const scene = await startScene({
      runners,
      journalUrl: db.url(),
      apiKey: API_KEY,
      simulator: { seed: 11 },
      runArgs: ['run', manifest, '--out', join(runners.dir, 'out'), '--concurrency', String(IN_FLIGHT), '--quiet'],
    });
    const { sim, gateway, env } = scene;
    try {
      const resumed = await freezePastLease(sim, IN_FLIGHT, scene.run);

      // Every row the other runner found uncertain was answered upstream, and the resumed runner names it.
      const before = await readReport('answers', db.url(), gateway);
      const uncertain = before.items
        .filter((i) => i.state === 'uncertain')
        .map((i) => i.id)
        .sort();
      expect(uncertain.length, describeEnd('the resumed runner', resumed)).toBeGreaterThan(0);
      const commands = printedResolveCommands(resumed, /^gbatch resolve \S+ (\S+) --recorded-answer$/).map(
        ({ line, values: [id] }) => ({ line, id: id! }),
      );
      expect(commands.map((c) => c.id).sort(), describeEnd('the resumed runner', resumed)).toEqual(uncertain);
      expect(resumed.stderr).toMatch(
        new RegExp(`${commands.length} answer\\(s\\) were received from the gateway \\(and billed\\) after that`),
      );

      // The journal's event log holds each answer whole.
      const notes = await db.query<{ item_id: string; detail: string }>(
        `SELECT item_id, detail FROM events WHERE event = 'answer-unrecorded' ORDER BY item_id`,
      );
      expect(notes.rows.map((r) => r.item_id)).toEqual(uncertain);
      for (const row of notes.rows) {
        const detail = JSON.parse(row.detail) as {
          attempt: number;
          answer: { response: { choices?: unknown[] }; actualUsd: number };
        };
        expect(detail.attempt, row.item_id).toBe(1);
        expect(detail.answer.response.choices?.length, row.item_id).toBeGreaterThan(0);
        expect(detail.answer.actualUsd, row.item_id).toBeGreaterThan(0);
      }

      // Sending such a row again would bill its answer twice: refused, pointing at the command that settles it.
      const resend = await runPasted(commands[0]!.line.replace(/--recorded-answer$/, '--resubmit'), { ...env });
      expect(resend.code, describeEnd('resolve --resubmit', resend)).toBe(2);
      expect(resend.stderr).toContain(commands[0]!.line);
      const bulk = await runPasted(commands[0]!.line.replace(/\S+ --recorded-answer$/, '--all-uncertain --resubmit'), {
        ...env,
      });
      expect(bulk.code, describeEnd('resolve --all-uncertain --resubmit', bulk)).toBe(2);
      expect(bulk.stderr).toContain(`${commands.length} uncertain item(s) have the gateway's answer in the journal`);
      // Nor may the operator say it was not billed: the journal knows it was.
      const release = await runPasted(commands[0]!.line.replace(/--recorded-answer$/, '--abandon --not-billed'), {
        ...env,
      });
      expect(release.code, describeEnd('resolve --abandon --not-billed', release)).toBe(2);
      expect(release.stderr).toContain(commands[0]!.line);

      const after = await pasteThenRunAgain(scene, commands, 'answers');
      // From the gateway's ledger: every request it answered is a row's, once; none was sent twice.
      const answered = sim.ledger.requests.filter(
        (r) => r.method === 'POST' && r.path.endsWith('/chat/completions') && r.status === 200,
      );
      expect(answered).toHaveLength(ROWS);
      expect(Object.values(sim.ledger.submissionsByPrompt()).filter((n) => n !== 1)).toEqual([]);
      expect(Object.keys(sim.ledger.submissionsByPrompt()).sort()).toEqual(
        Array.from({ length: ROWS }, (_, i) => `unrecorded answer ${i}`).sort(),
      );
      // Each settled row's cost is the answer's, booked: nothing left reserved.
      expect(after.totals.reserved_usd).toBe(0);
    } finally {
      await sim.close();
    }
  }, 90_000);
});
