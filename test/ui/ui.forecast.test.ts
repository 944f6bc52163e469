// The dashboard's job page shows the forecast the job started with: a job that learned from an imported history
// shows P50, P90 and the settled rows it drew on; a first job says there was no history and that the table's
// estimate is used. Real runs against a gateway that bills 480p videos at 720p, a real `gbatch ui`, its HTML;
// every figure checked against the forecast the journal's record keeps.
import { describe, expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../helpers/cli.js';
import { forecastRun, startDearerGateway } from '../helpers/forecast-jobs.js';
import { chatRow, videoRow, writeJsonl } from '../helpers/manifests.js';
import { workspace } from '../helpers/workspace.js';
import { bearer, startUiChild, unescape } from '../helpers/ui.js';
import { openQueries } from '../../src/journal/open-store.js';
import { startForecastOf, type StartForecast } from '../../src/core/start-forecast.js';

const rows = (tag: string) => [
  videoRow(`${tag}-v0`, `A harbour at dawn ${tag}`),
  videoRow(`${tag}-v1`, `A harbour at dusk ${tag}`),
  chatRow(`${tag}-c0`, `Question ${tag}`, { model: 'chat-large', max_tokens: 400 }),
];

async function keptForecast(state: string, job: string): Promise<StartForecast> {
  const journal = await openQueries(state, { job });
  try {
    const kept = startForecastOf((await journal.getJob())?.options);
    expect(kept, job).toBeDefined();
    return kept!;
  } finally {
    await journal.close();
  }
}

/** The page's forecast fields: name -> data-value. */
function forecastFields(html: string): Record<string, number> {
  const section = /<section id="job-forecast">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  return Object.fromEntries(
    [...section.matchAll(/data-field="(forecast_[a-z0-9_]+)" data-value="([^"]*)"/g)].map((m) => [m[1]!, Number(m[2])]),
  );
}

describe.skipIf(!BUILT)('the dashboard: the forecast on a job page', () => {
  test('with history: P50, P90 and its basis; without: none, and the table estimate is used', async () => {
    const ws = workspace();
    const gw = await startDearerGateway();
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const state = (job: string) => ws.path('state', `${job}.db`);
    const runJson = forecastRun(ws, env, (job) => ['--state', state(job)]);
    const run = async (job: string) => {
      const ran = await runJson(writeJsonl(ws.path(`${job}.jsonl`), rows(job)), job);
      expect(ran.code, ran.stderr).toBe(0);
    };
    await run('first');
    const imported = await runCli(['history', 'import', state('first'), '--state', state('second')]);
    expect(imported.code, imported.stderr).toBe(0);
    await run('second');
    const first = await keptForecast(state('first'), 'first');
    const second = await keptForecast(state('second'), 'second');
    expect(first.total.basisRows).toBe(0);
    expect(second.total.basisRows).toBeGreaterThan(0);

    const ui = await startUiChild(['--state-dir', ws.path('state')]);
    onTestFinished(() => ui.stop());
    const page = async (job: string) => {
      const res = await fetch(`${ui.url}jobs/${job}`, { headers: bearer() });
      expect(res.status).toBe(200);
      return res.text();
    };

    const learned = await page('second');
    expect(forecastFields(learned)).toEqual({
      forecast_p50_usd: second.total.p50Usd,
      forecast_p90_usd: second.total.p90Usd,
      forecast_basis_rows: second.total.basisRows,
    });
    expect(unescape(learned)).toMatch(/settled row\(s\) like these/);
    // The report's per-model forecast against the bill follows it, learned rows and all.
    expect(learned).toContain('<section id="forecast">');
    expect(unescape(learned)).not.toContain('no history');

    const fresh = await page('first');
    expect(forecastFields(fresh)).toEqual({ forecast_estimate_usd: first.total.p50Usd });
    expect(unescape(fresh)).toContain("no history: no settled rows like these, so the price table's estimate");
    expect(unescape(fresh)).toContain('no history: table estimate');
  }, 120_000);
});
