// `--notify-at` counts money billed (the charges of answered rows), never reservations alone: four video
// tasks held in flight reserve 83 % of the budget in the first second, yet the gateway bills 15 % of it
// for their work. Only the threshold their charges cross is announced, and its text names what it counts.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../helpers/cli.js';
import { videoRow, writeJsonl } from '../helpers/manifests.js';
import { KEY, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { startHook } from '../helpers/webhook-server.js';

test.skipIf(!BUILT)(
  '--notify-at 10,50,80: reservations at 83 % announce nothing; the 10 % billed is announced, naming its figures',
  async () => {
    const ws = workspace();
    // Tasks of 0.6 s: the four reservations are held together for several threshold checks.
    const sim = await startSim({ taskSeconds: 0.6 });
    const hook = await startHook([]);
    const manifest = writeJsonl(
      ws.path('videos.jsonl'),
      ['Fog over a harbour', 'A fox in snow', 'Neon in the rain', 'A paper plane'].map((p, i) =>
        videoRow(`v${i + 1}`, p),
      ),
    );
    const plan = stdoutJson(await runCli(['plan', manifest, '--json'], { cwd: ws.dir }));
    // All four reserved at once: 4 / 4.8 = 83 % of the budget. Billed in the end: the estimate, far less.
    const budget = Number((plan.max_usd * 1.2).toFixed(6));
    const billedPct = (plan.estimated_usd / budget) * 100;
    expect(billedPct).toBeGreaterThan(10);
    expect(billedPct).toBeLessThan(50);
    const run = await runCli(
      [
        'run',
        manifest,
        '--budget',
        String(budget),
        '--notify',
        hook.url,
        '--notify-at',
        '10,50,80',
        '--poll-interval',
        '0.1',
        '--quiet',
      ],
      { cwd: ws.dir, env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(0);

    const bodies = hook.received.map((r) => r.body);
    const thresholds = bodies.filter((b) => b.event === 'budget-threshold');
    expect(thresholds.map((b) => b.threshold_pct)).toEqual([10]);
    const [crossing] = thresholds;
    expect(crossing.spend_usd).toBeGreaterThanOrEqual(0.1 * budget);
    expect(crossing).toMatchObject({ basis: 'billed', budget_usd: budget, exit_code: null });
    expect(crossing.text).toMatch(
      /^gbatch videos: 10% of the \$0\.89 budget billed: \$0\.\d\d charged for answered rows \(settled or not\); the \$\d+\.\d\d reserved for requests in flight is not counted; the run goes on$/,
    );
    const ended = bodies.find((b) => b.event === 'run-ended');
    expect(ended.spend_usd).toBeCloseTo(plan.estimated_usd, 6);
  },
  30_000,
);
