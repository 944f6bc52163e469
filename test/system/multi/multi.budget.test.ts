// Two runners on one PostgreSQL journal under a budget that binds while tasks are in flight (each video
// row reserves its bound, several times what it is charged): a runner short of headroom waits for the
// job's work in flight to settle, as one runner does, instead of deferring the row. Proven from the
// simulator's ledger: nothing deferred that one runner would have sent, the gateway's spend within the
// budget and equal to what the report books. A runner SIGKILLed mid-run is taken over by the other,
// whose view of the job's money never shows a negative reservation and ends on the job's totals.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, startGbatch, type Ended, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { watchSimulator } from '../../helpers/crash/sim-watch.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { readReport } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-budget';
const ROWS = 120;
/** Each row is charged ~$0.033 and reserves its bound, ~$0.186: all of them fit the budget, 25 at a time do not. */
const BUDGET = 4.5;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Snapshot {
  phase: string;
  money: { actual_usd: number; reserved_usd: number };
}

function snapshots(ended: Ended): Snapshot[] {
  return ended.stderr
    .split('\n')
    .filter((l) => l.startsWith('{"type":"snapshot"'))
    .map((l) => JSON.parse(l) as Snapshot);
}

describe.skipIf(!pgAvailable())('several runners of one job under a binding --budget', () => {
  const db = usePgSchema('gbatch_multi_budget');

  function argsFor(name: string): { args: string[]; manifest: string } {
    const manifest = writeJsonl(
      join(dir, `${name}.jsonl`),
      Array.from({ length: ROWS }, (_, i) => videoRow(`v-${i}`, `${name} clip ${i}`)),
    );
    const args = [
      'run',
      manifest,
      '--journal',
      db.url(),
      '--out',
      join(dir, `out-${name}`),
      '--poll-interval',
      '0.05',
      '--concurrency',
      '16',
      '--budget',
      String(BUDGET),
      '--progress',
      'json',
    ];
    return { args, manifest };
  }

  test('two runners defer nothing one runner would have sent; the ledger stays within the budget and matches the report', async () => {
    assertBuilt();
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 1000 }],
      seed: 7,
      taskSeconds: 0.4,
      faults: { latencyMs: 30 },
    });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const { args } = argsFor('binding');
      const ends = await Promise.all([startGbatch(args, gateway).ended, startGbatch(args, gateway).ended]);
      for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(0);
      const report = await readReport('binding', db.url(), gateway);
      // One runner sends every row: the whole job's charge plus one reservation fits the budget.
      expect(report.totals.by_state, ends.map((e) => e.stderr).join('\n')).toEqual({ downloaded: ROWS });
      const charged = sim.ledger.chargesTotal(sim.account(API_KEY).name);
      expect(charged).toBeLessThanOrEqual(BUDGET);
      expect(sim.ledger.tasks).toHaveLength(ROWS);
      expect(report.totals.actual_usd).toBeCloseTo(charged, 8);
      expect(report.totals.reserved_usd).toBe(0);
    } finally {
      await sim.close();
    }
  }, 120_000);

  test('after one runner is SIGKILLed, the other takes over: its reservations never go negative and its last line states the job totals', async () => {
    assertBuilt();
    const sim = await startSimulator({
      accounts: [{ key: API_KEY, balanceUsd: 1000 }],
      seed: 8,
      taskSeconds: 0.6,
      faults: { latencyMs: 30 },
    });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const watch = watchSimulator(sim);
      const { args } = argsFor('takeover');
      const env = { GBATCH_LOCK_STALE_MS: '2000' };
      const survivor = startGbatch(args, gateway, undefined, env);
      const killed = startGbatch(args, gateway, undefined, env);
      // Killed once both runners have tasks in flight: the survivor takes over tasks it never reserved. The
      // killed runner's own snapshot shows it has sent rows, has more to send and polls tasks of its own.
      await new Promise<void>((resolve) => {
        let posts = 0;
        let killedSent = false;
        const check = () => {
          if (posts >= 30 && killedSent) resolve();
        };
        watch.events.on('request', (entry) => {
          if (entry.method === 'POST') posts++;
          check();
        });
        let pending = '';
        killed.process.stderr!.on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop()!;
          for (const line of lines) {
            if (!line.startsWith('{')) continue;
            const frame = JSON.parse(line) as {
              type: string;
              lanes?: { submit: { done: number; queued: number }; poll: { tasks: number } };
            };
            // It holds tasks it polls (its own: the survivor can only take them over) and has rows left to send.
            if (
              frame.type === 'snapshot' &&
              frame.lanes!.submit.done >= 3 &&
              frame.lanes!.submit.queued > 0 &&
              frame.lanes!.poll.tasks > 0
            )
              killedSent = true;
          }
          check();
        });
      });
      killed.kill();
      const ended = await survivor.ended;
      expect([0, 4], describeEnd('the survivor', ended)).toContain(ended.code);
      expect(ended.stderr).toMatch(/took over \d+ item\(s\) from a runner that is gone/);
      const seen = snapshots(ended);
      expect(seen.length).toBeGreaterThan(1);
      expect(
        seen.filter((s) => s.money.reserved_usd < 0).map((s) => s.money.reserved_usd),
        "a negative reservation in the survivor's view",
      ).toEqual([]);
      const report = await readReport('takeover', db.url(), gateway);
      const last = seen[seen.length - 1]!;
      expect(last.phase).toBe('done');
      expect(last.money.actual_usd).toBeCloseTo(report.totals.actual_usd, 6);
      expect(last.money.reserved_usd).toBeCloseTo(report.totals.reserved_usd, 6);
      expect(sim.ledger.chargesTotal(sim.account(API_KEY).name)).toBeLessThanOrEqual(BUDGET);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
