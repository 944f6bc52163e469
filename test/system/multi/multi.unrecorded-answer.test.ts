// A runner frozen (SIGSTOP) with chat requests on the wire loses its lease: another runner makes those rows
// uncertain and finishes the rest. Resumed (SIGCONT), the frozen runner reads the gateway's answers, billed:
// the journal refuses them as the rows' own, but they are not thrown away. It notes each answer whole in the
// journal's event log and prints for each the `gbatch resolve --recorded-answer` command; the commands,
// pasted, settle each row from its answer, and the next run writes them out: nothing is sent twice.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import {
  assertBuilt,
  describeEnd,
  REPO,
  startGbatch,
  type Ended,
  type Gateway,
  type GbatchChild,
} from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { freezePastLease } from '../../helpers/frozen-past-lease.js';
import { readReport } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-unrecorded-answer';
const LEASE_MS = 1500;
const ROWS = 10;
const IN_FLIGHT = 4;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-unrecorded-answer-'));
const started: GbatchChild[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    child.process.kill('SIGCONT');
    child.kill();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('a runner frozen past its lease with chat answers on the wire', () => {
  const db = usePgSchema('gbatch_multi_unrecorded_answer');

  test('resumed, it keeps the answers the journal refused: noted whole in the event log, and resolve commands that settle the rows when pasted', async () => {
    assertBuilt();
    // Every answer takes 600 ms: the frozen runner's requests are answered while it is stopped.
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 100 }],
      seed: 11,
      faults: { latencyMs: 600 },
    });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    const env = { GBATCH_LOCK_STALE_MS: String(LEASE_MS), GBATCH_JOURNAL_URL: db.url() };
    const manifest = writeJsonl(
      join(dir, 'answers.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`c-${i}`, `unrecorded answer ${i}`)),
    );
    const run = (): GbatchChild => {
      const child = startGbatch(
        ['run', manifest, '--out', join(dir, 'out'), '--concurrency', String(IN_FLIGHT), '--quiet'],
        gateway,
        undefined,
        env,
      );
      started.push(child);
      return child;
    };
    try {
      const resumed = await freezePastLease(sim, IN_FLIGHT, run);

      // Every row the other runner found uncertain was answered upstream, and the resumed runner names it.
      const before = await readReport('answers', db.url(), gateway);
      const uncertain = before.items
        .filter((i) => i.state === 'uncertain')
        .map((i) => i.id)
        .sort();
      expect(uncertain.length, describeEnd('the resumed runner', resumed)).toBeGreaterThan(0);
      const commands = pastedCommands(resumed);
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
      const resend = await paste(commands[0]!.line.replace(/--recorded-answer$/, '--resubmit'), { ...env });
      expect(resend.code, describeEnd('resolve --resubmit', resend)).toBe(2);
      expect(resend.stderr).toContain(commands[0]!.line);
      const bulk = await paste(commands[0]!.line.replace(/\S+ --recorded-answer$/, '--all-uncertain --resubmit'), {
        ...env,
      });
      expect(bulk.code, describeEnd('resolve --all-uncertain --resubmit', bulk)).toBe(2);
      expect(bulk.stderr).toContain(`${commands.length} uncertain item(s) have the gateway's answer in the journal`);

      for (const { line } of commands) {
        // Pasted where the run was started: the same environment (journal, gateway).
        const pasted = await paste(line, {
          ...env,
          GATEWAY_BASE_URL: gateway.baseUrl,
          GATEWAY_API_KEY: gateway.apiKey,
        });
        expect(pasted.code, describeEnd(line, pasted)).toBe(0);
      }
      const last = await run().ended;
      expect(last.code, describeEnd('the next run', last)).toBe(0);
      const after = await readReport('answers', db.url(), gateway);
      expect(after.items.filter((i) => i.state !== 'downloaded').map((i) => `${i.id}: ${i.state}`)).toEqual([]);
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

/** The `gbatch resolve --recorded-answer` lines the runner printed, each as it would be pasted. */
function pastedCommands(ended: Ended): Array<{ line: string; id: string }> {
  return ended.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('gbatch resolve '))
    .map((line) => {
      const match = /^gbatch resolve \S+ (\S+) --recorded-answer$/.exec(line);
      if (!match) throw new Error(`not a command this test reads: ${line}`);
      return { line, id: match[1]!.replace(/^'|'$/g, '') };
    });
}

/** Runs `line` in a shell, `gbatch` being this checkout's built CLI. */
function paste(line: string, env: NodeJS.ProcessEnv): Promise<Ended> {
  const script = `gbatch() { "${process.execPath}" "${REPO}bin/gbatch.js" "$@"; }\n${line}`;
  const child = spawn('sh', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
