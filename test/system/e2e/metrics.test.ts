// `gbatch run --metrics-port 0 --push-metrics URL` as an operator's Prometheus sees it: /metrics served
// while the run lives (behind GBATCH_METRICS_TOKENS), and the final figures pushed to a Pushgateway
// equal what `status --json` and `report --format json` say of the same journal.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { parseExposition, rowsByKind, type Exposition } from '../../helpers/prometheus-text.js';
import { closedPort, startPushReceiver } from '../../helpers/pushgateway-receiver.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { ITEM_KINDS, ITEM_STATES } from '../../../src/core/states.js';
import { readJournal, tallyByKind } from '../../helpers/journal-read.js';

const CHATS = 6;
const VIDEOS = 3;
const ROWS = CHATS + VIDEOS;
const TOKENS = 'tok-prometheus-a,tok-prometheus-b';
const TASK_SECONDS = 60;

function campaign(ws: Workspace): string {
  return writeJsonl(ws.path('rows.jsonl'), [
    ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i}`, `Say hello number ${i}`)),
    ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A harbour at dawn, take ${i}`)),
  ]);
}

/** The lane of a request the simulator recorded, by its method and path (the spec's endpoints). */
function laneOf(method: string, path: string): string {
  if (method === 'POST') return 'submit';
  if (path.endsWith('/content')) return 'download';
  return path === '/v1/models' ? 'other' : 'poll';
}

async function scrape(url: string, token?: string): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

/** Every state's row count, as a record. */
function rowsByState(metrics: Exposition): Record<string, number | undefined> {
  return Object.fromEntries(ITEM_STATES.map((state) => [state, metrics.sum('gbatch_rows', { state })]));
}

test.skipIf(!BUILT)(
  'serves /metrics behind its tokens while the run lives; the pushed final figures equal status and report',
  async () => {
    const ws = workspace();
    // The simulator's clock stands still: the videos stay in progress until the test moves it.
    let simNow = Date.now();
    // Half the chat calls answer 5xx (sent again): the requests' status classes are not all 2xx.
    const sim = await startSim({
      clock: { now: () => simNow },
      taskSeconds: TASK_SECONDS,
      faults: { errorRates: { chat: 0.5 } },
      seed: 3, // this seed answers several of them 5xx
    });
    const push = await startPushReceiver();
    const manifest = campaign(ws);
    const run = startCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--budget',
        '5',
        '--poll-interval',
        '0.05',
        '--metrics-port',
        '0',
        '--push-metrics',
        push.url,
        '--progress',
        'plain',
        '--json',
      ],
      { env: { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_METRICS_TOKENS: TOKENS } },
    );
    const line = await run.stderrMatching(/metrics: serving http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(line)![1]!;
    // Every chat answered and every video polled at least once: the run is mid-way, waiting on its tasks.
    await sim.ledger.reached(
      (l) =>
        l.requests.filter((r) => r.method === 'POST' && r.status === 200).length >= ROWS &&
        l.requests.filter((r) => r.method === 'GET' && /\/video\/generations\/./.test(r.path)).length >= VIDEOS,
    );

    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, 'tok-wrong')).status).toBe(401);
    const during = await scrape(url, 'tok-prometheus-b');
    expect(during.status).toBe(200);
    expect(during.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const live = parseExposition(during.text);
    expect(live.sum('gbatch_rows')).toBe(ROWS);
    expect(live.sum('gbatch_rows', { kind: 'video' })).toBe(VIDEOS);
    expect(live.sum('gbatch_rows', { kind: 'chat' })).toBe(CHATS);
    expect(live.value('gbatch_budget_usd')).toBe(5);
    expect(live.value('gbatch_run_phase', { phase: 'done' })).toBe(0);
    expect(live.types.get('gbatch_video_task_duration_seconds')).toBe('histogram');
    expect(live.value('gbatch_last_success_timestamp_seconds')).toBeUndefined();

    simNow += (TASK_SECONDS + 1) * 1000;
    const beforeEnd = Date.now() / 1000;
    const result = await run.result;
    const afterEnd = Date.now() / 1000;
    expect(result.code, result.stderr).toBe(0);
    // Served for the run's life only.
    await expect(fetch(url)).rejects.toThrow();

    expect(push.received).toHaveLength(1);
    const [pushed] = push.received;
    expect(pushed!.method).toBe('PUT');
    expect(pushed!.path).toBe('/metrics/job/gbatch/instance/rows');
    const final = parseExposition(pushed!.body);
    const success = final.value('gbatch_last_success_timestamp_seconds')!;
    expect(success).toBeGreaterThanOrEqual(beforeEnd - 1);
    expect(success).toBeLessThanOrEqual(afterEnd);

    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    const report = stdoutJson(await runCli(['report', '--state', ws.state, '--format', 'json']));
    expect(rowsByState(final)).toEqual(Object.fromEntries(ITEM_STATES.map((s) => [s, status.counts[s] ?? 0])));
    expect(rowsByKind(final, ITEM_KINDS, ITEM_STATES)).toEqual(tallyByKind(readJournal(ws.state).items));
    expect(final.sum('gbatch_rows', { kind: 'video', state: 'downloaded' })).toBe(VIDEOS);
    expect(final.sum('gbatch_rows', { kind: 'chat', state: 'downloaded' })).toBe(CHATS);
    expect(final.value('gbatch_spend_usd')).toBe(status.actual_usd);
    expect(final.value('gbatch_reserved_usd')).toBe(status.reserved_usd);
    expect(final.value('gbatch_budget_usd')).toBe(status.budget_usd);
    expect(final.value('gbatch_spend_usd')).toBe(report.totals.actual_usd);
    expect(final.value('gbatch_reserved_usd')).toBe(report.totals.reserved_usd);
    expect(final.value('gbatch_budget_usd')).toBe(report.totals.budget_usd);
    expect(final.sum('gbatch_estimate_usd')).toBeCloseTo(report.totals.estimated_usd, 6);
    expect(final.sum('gbatch_settled_actual_usd')).toBeCloseTo(report.totals.actual_usd, 6);
    // What the run did, counted from its events.
    const summary = stdoutJson(result);
    expect(final.value('gbatch_video_polls_total')).toBe(summary.polls);
    expect(final.value('gbatch_downloads_total')).toBe(VIDEOS);
    expect(final.value('gbatch_video_task_duration_seconds_count')).toBe(VIDEOS);
    expect(final.value('gbatch_download_bytes_total')).toBeGreaterThan(0);
    // Every request the gateway saw, by lane and status class, as its own ledger records them.
    const seen: Record<string, number> = {};
    for (const r of sim.ledger.requests) {
      const key = `${laneOf(r.method, r.path)} ${r.status === null ? 'none' : `${Math.floor(r.status / 100)}xx`}`;
      seen[key] = (seen[key] ?? 0) + 1;
    }
    const counted = Object.fromEntries(
      final.samples
        .filter((x) => x.name === 'gbatch_requests_total')
        .map((x) => [`${x.labels.lane} ${x.labels.status_class}`, x.value]),
    );
    expect(counted).toEqual(seen);
    expect(seen['submit 5xx']).toBeGreaterThan(0);
    expect(seen['submit 2xx']).toBe(ROWS);
    expect(final.value('gbatch_submissions_total', { outcome: 'answered' })).toBe(CHATS);
    expect(final.value('gbatch_submissions_total', { outcome: 'accepted' })).toBe(VIDEOS);
    expect(final.value('gbatch_journal_commit_duration_seconds_count')).toBe(summary.journal_commits);
    expect(final.value('gbatch_run_phase', { phase: 'done' })).toBe(1);
  },
);

test.skipIf(!BUILT)('a failing run pushes its figures without a last-success time', async () => {
  const ws = workspace();
  // An empty account: the gateway answers 402, the run stops with rows deferred (exit 3).
  const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 0 }] });
  const push = await startPushReceiver();
  const result = await runCli(
    [
      'run',
      campaign(ws),
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--push-metrics',
      `${push.url}/`,
      '--poll-interval',
      '0.05',
      '--quiet',
      '--json',
    ],
    { env: gatewayEnv(sim.baseUrl, KEY) },
  );
  expect(result.code, result.stderr).toBe(3);
  expect(stdoutJson(result).exit_code).toBe(3);
  expect(push.received.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /metrics/job/gbatch/instance/rows']);
  const final = parseExposition(push.received[0]!.body);
  expect(final.value('gbatch_last_success_timestamp_seconds')).toBeUndefined();
  const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
  expect(rowsByState(final)).toEqual(Object.fromEntries(ITEM_STATES.map((s) => [s, status.counts[s] ?? 0])));
  expect(rowsByKind(final, ITEM_KINDS, ITEM_STATES)).toEqual(tallyByKind(readJournal(ws.state).items));
});

test.skipIf(!BUILT)('a push that fails is one warning line: the exit code and the summary stay the same', async () => {
  const ws = workspace();
  const sim = await startSim();
  const port = await closedPort();
  const result = await runCli(
    [
      'run',
      campaign(ws),
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--push-metrics',
      `http://user:secret@127.0.0.1:${port}`,
      '--poll-interval',
      '0.05',
      '--quiet',
      '--json',
    ],
    { env: gatewayEnv(sim.baseUrl, KEY) },
  );
  expect(result.code, result.stderr).toBe(0);
  expect(stdoutJson(result)).toMatchObject({ exit_code: 0, counts: { downloaded: ROWS } });
  const warnings = result.stderr.split('\n').filter((l) => /metrics not pushed/.test(l));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(`http://127.0.0.1:${port}/`);
  expect(result.stderr).not.toContain('secret');
});

test.skipIf(!BUILT)('a metrics port already taken: exit 2 before anything is sent', async () => {
  const ws = workspace();
  const sim = await startSim();
  const taken = await startPushReceiver();
  const port = new URL(taken.url).port;
  const result = await runCli(['run', campaign(ws), '--state', ws.state, '--out', ws.out, '--metrics-port', port], {
    env: gatewayEnv(sim.baseUrl, KEY),
  });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`--metrics-port ${port} on 127.0.0.1: cannot listen (EADDRINUSE)`);
  expect(sim.ledger.requests).toHaveLength(0);
});

test.skipIf(!BUILT)('beyond loopback without a token: exit 2 before anything is sent', async () => {
  const ws = workspace();
  const sim = await startSim();
  const result = await runCli(
    ['run', campaign(ws), '--state', ws.state, '--out', ws.out, '--metrics-port', '0', '--metrics-host', '0.0.0.0'],
    { env: gatewayEnv(sim.baseUrl, KEY) },
  );
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/--metrics-host 0\.0\.0\.0 is not loopback: set GBATCH_METRICS_TOKENS/);
  expect(sim.ledger.requests).toHaveLength(0);
});
