// A 429 from the gateway as an operator's Prometheus sees it: `gbatch_rate_limit_pauses_total` counts it in
// a scrape while the run goes on, and in the figures pushed at its end, as many as the gateway answered.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, startCli, stdoutJson } from '../../helpers/cli.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { parseExposition } from '../../helpers/prometheus-text.js';
import { startPushReceiver } from '../../helpers/pushgateway-receiver.js';
import { workspace } from '../../helpers/workspace.js';

const ROWS = 5;
/** The chat call answered 429 (1-based, in arrival order). */
const REFUSED = 2;
const TOKEN = 'tok-prometheus-429';

test.skipIf(!BUILT)('a 429 is counted as a pause in a scrape during the run and in the pushed figures', async () => {
  const ws = workspace();
  let calls = 0;
  let resumed!: () => void;
  const afterPause = new Promise<void>((resolve) => (resumed = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const gateway = await startHostileGateway({
    routes: {
      chat: async (req, res, gw) => {
        calls++;
        if (calls === REFUSED)
          return sendJson(res, 429, errorEnvelope('slow down', 'rate_limit_error'), { 'retry-after': '1' });
        // The call after the refused one comes once the run has taken the 429 in and waited out its pause:
        // it is held while the test scrapes.
        if (calls === REFUSED + 1) {
          resumed();
          await released;
        }
        return DEFAULTS.chat(req, res, gw);
      },
    },
  });
  const push = await startPushReceiver();
  try {
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`c${i}`, `Say hello number ${i}`)),
    );
    const run = startCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--concurrency',
        '1',
        '--metrics-port',
        '0',
        '--push-metrics',
        push.url,
        '--progress',
        'plain',
        '--json',
      ],
      { env: { ...gatewayEnv(gateway.baseUrl, gateway.key), GBATCH_METRICS_TOKENS: TOKEN } },
    );
    const line = await run.stderrMatching(/metrics: serving http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(line)![1]!;
    await afterPause;
    const scraped = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    const live = parseExposition(await scraped.text());
    expect(live.types.get('gbatch_rate_limit_pauses_total')).toBe('counter');
    expect(live.value('gbatch_rate_limit_pauses_total')).toBe(1);
    expect(live.value('gbatch_requests_total', { lane: 'submit', status_class: '4xx' })).toBe(1);
    release();

    const result = await run.result;
    expect(result.code, result.stderr).toBe(0);
    expect(stdoutJson(result)).toMatchObject({ exit_code: 0, counts: { downloaded: ROWS } });
    const answered429 = calls - ROWS;
    expect(answered429).toBe(1);
    expect(push.received).toHaveLength(1);
    const final = parseExposition(push.received[0]!.body);
    expect(final.value('gbatch_rate_limit_pauses_total')).toBe(answered429);
    expect(final.value('gbatch_requests_total', { lane: 'submit', status_class: '2xx' })).toBe(ROWS);
    expect(final.value('gbatch_requests_total', { lane: 'submit', status_class: '4xx' })).toBe(answered429);
    expect(final.value('gbatch_rate_limit_paused')).toBe(0);
    expect(final.value('gbatch_submissions_total', { outcome: 'retried' })).toBe(answered429);
  } finally {
    release();
    await gateway.close();
  }
});
