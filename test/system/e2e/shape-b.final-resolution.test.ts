// Polling answers in Shape B (the machine-readable schema) and a gateway that delivers another
// resolution than the one asked for: settled at the delivered resolution's rate, as the ledger charged.

import { expect, test } from 'vitest';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { reportItemOf, reportJson } from '../../helpers/report.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

test.skipIf(!BUILT)(
  'Shape B polling completes the job; a 1080p delivery of a 720p request is billed at the 1080p rate',
  async () => {
    const ws = workspace();
    const sim = await startSim({ shape: 'b', faults: { finalResolution: '1080p' } });
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('plain', 'A cat asleep on a windowsill', { model: 'video-fast', resolution: '720p', duration: 2 }),
      videoRow('ref', 'Recolour the reference in sepia', {
        model: 'video-fast',
        resolution: '720p',
        duration: 2,
        video_url: 'https://example.com/ref.mp4',
      }),
    ]);

    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.05', '--quiet'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sim.ledger.requests.some((r) => r.method === 'GET' && r.path.startsWith('/v1/video/generations/'))).toBe(
      true,
    );

    const report = await reportJson(ws.state);
    for (const [id, prompt, hasRef] of [
      ['plain', 'A cat asleep on a windowsill', false],
      ['ref', 'Recolour the reference in sepia', true],
    ] as const) {
      const item = reportItemOf(report, id);
      const task = sim.ledger.tasks.find((t) => t.prompt === prompt)!;
      expect(task.finalResolution).toBe('1080p');
      expect(item).toMatchObject({
        state: 'downloaded',
        resolution: '720p',
        final_resolution: '1080p',
        has_reference_video: hasRef,
        total_tokens: task.totalTokens,
      });
      const rate = BUILTIN_PRICING.video['video-fast']!['1080p']!;
      expect(item.actual_usd).toBeCloseTo((task.totalTokens! / 1e6) * (hasRef ? rate.ref : rate.noref), 6);
      expect(item.actual_usd).toBeCloseTo(task.chargedUsd, 6);
      expect(sha256File(item.output!)).toBe(SIM_VIDEO_SHA256);
    }
    expect(report.totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
    // The 1080p delivery costs more than the 720p estimate: the report shows the overshoot.
    expect(report.totals.overshoot_usd).toBeGreaterThan(0);
  },
);
