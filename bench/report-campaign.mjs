// A mixed campaign for the HTML report (issue 12): chat, responses and video rows of several models and
// resolutions against `gbatch sim` with a rate limit, 5xx answers, failing video tasks, dearer final
// resolutions, a few dropped answers (uncertain) and invalid rows; then `report --format html`.
// Usage: npm run build && node bench/report-campaign.mjs [--rows 2300] [--keep DIR]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flag, machine, removeDir, report, requireBuild, runGbatch, startSim, tempDir } from './lib/harness.mjs';

export function campaignRows(total) {
  const lines = [];
  const videoModels = [
    ['video-mini', '480p', 2],
    ['video-fast', '720p', 5],
    ['video-pro', '1080p', 4],
  ];
  for (let i = 0; i < total; i++) {
    if (i % 250 === 249) lines.push({ id: `bad-${i}`, kind: 'chat', model: 'chat-small', messages: [] });
    else if (i % 7 === 3) {
      const [model, resolution, duration] = videoModels[i % 3];
      lines.push({
        id: `clip-${i}`,
        kind: 'video',
        model,
        prompt: `A slow pan over scene number ${i}`,
        resolution,
        duration,
      });
    } else if (i % 5 === 0)
      lines.push({
        id: `ask-${i}`,
        kind: 'responses',
        model: 'chat-large',
        input: `One line on the number ${i}.`,
        max_output_tokens: 32,
      });
    else
      lines.push({
        id: `chat-${i}`,
        kind: 'chat',
        model: i % 2 ? 'chat-small' : 'chat-large',
        max_tokens: 24,
        messages: [{ role: 'user', content: `A one-line fact about ${i}, please.` }],
      });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

export async function reportCampaign({ rows = 2300, keep } = {}) {
  requireBuild();
  const dir = keep ?? tempDir('report-campaign');
  const manifest = join(dir, 'campaign.jsonl');
  writeFileSync(manifest, campaignRows(rows));
  const sim = await startSim([
    '--api-key',
    'sk-bench=100000',
    '--task-seconds',
    '2',
    '--rate-limit',
    '1500',
    '--error-rate',
    '0.02',
    '--fail-rate',
    '0.08',
    '--final-resolution-rate',
    '0.1',
    '--accept-then-drop-rate',
    '0.002',
    '--latency-ms',
    '40',
    '--latency-jitter-ms',
    '120',
    '--seed',
    '7',
  ]);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const state = join(dir, 'campaign.db');
  try {
    const run = await runGbatch(
      [
        'run',
        manifest,
        '--state',
        state,
        '--out',
        join(dir, 'out'),
        '--concurrency',
        '32',
        '--poll-interval',
        '0.3',
        '--budget',
        '400',
        '--skip-invalid',
        '--quiet',
        '--json',
      ],
      { env },
    );
    const html = join(dir, 'report.html');
    const written = await runGbatch(['report', '--state', state, '--format', 'html', '--output', html]);
    if (written.code !== 0) throw new Error(`report exited ${written.code}: ${written.stderr}`);
    const { statSync } = await import('node:fs');
    return {
      name: 'report-campaign',
      rows,
      run_exit: run.code,
      run_s: +(run.wallMs / 1000).toFixed(1),
      html_ms: Math.round(written.wallMs),
      html_bytes: statSync(html).size,
      dir,
      machine: machine(),
    };
  } finally {
    await sim.stop();
    if (!keep) removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const keep = flag('keep', undefined);
  if (keep) (await import('node:fs')).mkdirSync(keep, { recursive: true });
  report(await reportCampaign({ rows: Number(flag('rows', 2300)), keep }));
}
