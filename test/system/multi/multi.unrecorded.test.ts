// A runner frozen (SIGSTOP) with video submissions on the wire loses its lease: another runner makes those
// rows uncertain and finishes the rest. Resumed (SIGCONT), the frozen runner reads the gateway's answers:
// the journal refuses them (the rows are not its own any more), but their task ids are not thrown away.
// It notes them in the journal's event log, names them, and prints for each the `gbatch resolve --task-id`
// command; the commands, pasted, give each row its task, and the next run downloads it: one task per row.
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
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { freezePastLease } from '../../helpers/frozen-past-lease.js';
import { readReport } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-unrecorded';
const LEASE_MS = 1500;
const ROWS = 10;
const IN_FLIGHT = 4;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-unrecorded-'));
const started: GbatchChild[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    child.process.kill('SIGCONT');
    child.kill();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('a runner frozen past its lease with tasks on the wire', () => {
  const db = usePgSchema('gbatch_multi_unrecorded');

  test('resumed, it keeps the task ids the journal refused: noted in the event log, and resolve commands that work when pasted', async () => {
    assertBuilt();
    // Every answer takes 600 ms: the frozen runner's submissions are answered while it is stopped.
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 100 }],
      seed: 9,
      taskSeconds: 0.2,
      faults: { latencyMs: 600 },
    });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    // The journal named by the environment: the commands printed then need no URL (and work as pasted here).
    const env = { GBATCH_LOCK_STALE_MS: String(LEASE_MS), GBATCH_JOURNAL_URL: db.url() };
    const manifest = writeJsonl(
      join(dir, 'unrecorded.jsonl'),
      Array.from({ length: ROWS }, (_, i) => videoRow(`v-${i}`, `unrecorded clip ${i}`)),
    );
    const run = (): GbatchChild => {
      const child = startGbatch(
        [
          'run',
          manifest,
          '--out',
          join(dir, 'out'),
          '--poll-interval',
          '0.05',
          '--concurrency',
          String(IN_FLIGHT),
          '--quiet',
        ],
        gateway,
        undefined,
        env,
      );
      started.push(child);
      return child;
    };
    try {
      const resumed = await freezePastLease(sim, IN_FLIGHT, run);

      // Every row the other runner found uncertain has a task upstream, and the resumed runner names it.
      const before = await readReport('unrecorded', db.url(), gateway);
      const uncertain = before.items.filter((i) => i.state === 'uncertain');
      expect(uncertain.length, describeEnd('the resumed runner', resumed)).toBeGreaterThan(0);
      const upstream = new Map(sim.ledger.tasks.map((t) => [t.prompt, t.id]));
      const commands = pastedCommands(resumed);
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
      const after = await readReport('unrecorded', db.url(), gateway);
      expect(after.items.filter((i) => i.state !== 'downloaded').map((i) => `${i.id}: ${i.state}`)).toEqual([]);
      // One task per row: nothing was sent twice, and every task the gateway billed is a row's.
      expect(sim.ledger.tasks).toHaveLength(ROWS);
      expect(after.items.map((i) => i.task_id).sort()).toEqual(sim.ledger.tasks.map((t) => t.id).sort());
    } finally {
      await sim.close();
    }
  }, 90_000);
});

/** The `gbatch resolve` lines the runner printed, each as it would be pasted. */
function pastedCommands(ended: Ended): Array<{ line: string; id: string; taskId: string }> {
  return ended.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('gbatch resolve '))
    .map((line) => {
      const match = /^gbatch resolve \S+ (\S+) --task-id (\S+)$/.exec(line);
      if (!match) throw new Error(`not a command this test reads: ${line}`);
      return { line, id: match[1]!.replace(/^'|'$/g, ''), taskId: match[2]!.replace(/^'|'$/g, '') };
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
