// GBATCH_SLOT_TRACE: an answer to its slot's next request, split by phase.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SlotTrace, type SlotTraceSummary } from '../../../src/pipeline/lanes/slot-trace.js';
import { gatewayEnv, runCli, workspaceRunArgs } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

describe('the slot trace', () => {
  it('times each row from the oldest answer not yet followed, phase by phase', () => {
    let now = 0;
    const trace = new SlotTrace(() => now);
    const first = trace.started(); // a slot's first request follows no answer
    first.mark('intent');
    first.mark('wire');
    now = 100;
    trace.answered(98);
    now = 101;
    trace.answered(trace.answerIn());
    now = 103;
    const a = trace.started(); // follows the answer in at 98, its slot freed at 100
    now = 110;
    a.mark('intent');
    now = 111;
    a.mark('pacing');
    now = 112;
    a.mark('wire');
    const b = trace.started(); // follows the answer at 101
    now = 120;
    b.mark('intent');
    b.mark('wire'); // no pacing mark: that phase took no time
    trace.claimed(4);
    const summary = trace.summary();
    expect(summary.cycles).toBe(2);
    expect(summary.totalMs.mean).toBe(16.5); // 14 and 19
    expect(summary.phasesMs.booking.mean).toBe(1); // 2 and 0
    expect(summary.phasesMs.handOver.mean).toBe(7); // 3 and 11
    expect(summary.phasesMs.intent.mean).toBe(7.5); // 7 and 8
    expect(summary.phasesMs.pacing.p99).toBe(1);
    expect(summary.phasesMs.wire.p99).toBe(1);
    expect(summary.claims).toEqual({ count: 1, totalMs: 4 });
  });

  it('is written by a real run when GBATCH_SLOT_TRACE names a file, one cycle per request after the first in each slot', async () => {
    const sim = await startSim({ faults: { latencyMs: 5 } });
    const ws = workspace();
    const rows = 40;
    const concurrency = 4;
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: rows }, (_, i) => chatRow(`r${i}`, `hello ${i}`)),
    );
    const file = ws.path('slots.json');
    const run = await runCli(workspaceRunArgs(ws, manifest, ['--concurrency', String(concurrency), '--quiet']), {
      env: { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_SLOT_TRACE: file },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(posts(sim.ledger)).toBe(rows);
    const summary = JSON.parse(readFileSync(file, 'utf8')) as SlotTraceSummary;
    expect(summary.cycles).toBe(rows - concurrency);
    for (const stats of Object.values(summary.phasesMs)) expect(stats.p50).toBeGreaterThanOrEqual(0);
    expect(summary.totalMs.mean).toBeGreaterThan(summary.phasesMs.intent.mean);
    expect(summary.claims.count).toBeGreaterThanOrEqual(1);

    const quiet = workspace();
    const again = await runCli(workspaceRunArgs(quiet, writeJsonl(quiet.path('rows.jsonl'), [chatRow('q', 'hi')])), {
      env: gatewayEnv(sim.baseUrl, KEY),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(quiet.path('slots.json'))).toBe(false);
  });
});
