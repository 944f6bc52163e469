// `GET /metrics` on `gbatch serve`: batches run through the official `openai` SDK, then scraped as
// Prometheus would (strict text-format parse). Every batch's figures equal `status --json` and
// `report --format json` of its journal; a missing or wrong token is 401; `--no-auth` lifts it. A client's
// token reads only its own batches, a metrics token every batch; a final batch's series go after the
// retention; no state without rows has a series; a live batch has the number of series docs/metrics.md states.
import { describe, expect, it } from 'vitest';
import { ITEM_KINDS, ITEM_STATES } from '../../../src/core/states.js';
import { BUILT, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal, tallyByKind, withoutEmpty } from '../../helpers/journal-read.js';
import { parseExposition, rowsByKind, type Exposition } from '../../helpers/prometheus-text.js';
import {
  batchEnd,
  chatLine,
  client,
  startServe,
  submitBatch,
  TOKEN_A,
  TOKEN_B,
  videoLine,
  type ServeChild,
} from '../../helpers/serve.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { chatCharges, startSim } from '../../helpers/sim.js';
import { openQueries, type Item } from '../../../src/journal/index.js';
import { startForecastOf } from '../../../src/core/start-forecast.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const METRICS_TOKEN = 'tok-serve-prometheus-77a1';
const TASK_SECONDS = 60;
/** Every scrape reads the journals afresh, however long a read takes on a loaded machine. */
const FRESH = { GBATCH_METRICS_DEAR_READ_MS: String(3_600_000) };
/**
 * A final batch's series are gone at once (a millisecond after it ended): a server started after its batches
 * ended publishes only the live ones. The default retention (an hour) keeps them on the other servers here.
 */
const NO_RETENTION = { GBATCH_SERVE_TEST_METRICS_RETENTION_S: '0.001' };
/**
 * The series of a live batch, as docs/metrics.md counts them: spend, reserved, last activity, the estimate,
 * settled estimate and settled actual of each money kind (text, video), runners alive and not, the forecast kept
 * at the start (P50, P90); then one more with a budget, one per runner (its lease), one per kind and state that
 * has rows.
 */
const FIXED_SERIES = 13;

const jobsOf = (m: Exposition): Set<string | undefined> => new Set(m.samples.map((x) => x.labels.job_name));
const seriesOf = (m: Exposition, job: string): number => m.samples.filter((x) => x.labels.job_name === job).length;
const emptyStates = (m: Exposition) => m.samples.filter((x) => x.name === 'gbatch_rows' && x.value === 0);

function metricsUrl(server: ServeChild): string {
  return new URL('/metrics', server.url).href;
}

async function scrape(
  server: ServeChild,
  token?: string,
): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(metricsUrl(server), {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

/** What `status --json` and `report --format json` say of a batch's job. */
async function journalView(ws: Workspace, batchId: string) {
  const state = ws.path('data', 'journals', `${batchId}.db`);
  const status = stdoutJson(await runCli(['status', batchId, '--state', state, '--json']));
  const report = stdoutJson(await runCli(['report', batchId, '--state', state, '--format', 'json']));
  return { state, status, report };
}

async function expectBatchFigures(m: Exposition, ws: Workspace, batchId: string): Promise<void> {
  const { state, status, report } = await journalView(ws, batchId);
  const labels = { job_name: batchId };
  for (const s of ITEM_STATES) expect(m.sum('gbatch_rows', { ...labels, state: s }), s).toBe(status.counts[s] ?? 0);
  expect(rowsByKind(m, ITEM_KINDS, ITEM_STATES, labels)).toEqual(withoutEmpty(tallyByKind(readJournal(state).items)));
  expect(m.value('gbatch_spend_usd', labels)).toBe(status.actual_usd);
  expect(m.value('gbatch_reserved_usd', labels)).toBe(status.reserved_usd);
  expect(m.value('gbatch_budget_usd', labels)).toBe(status.budget_usd ?? undefined);
  expect(m.value('gbatch_spend_usd', labels)).toBe(report.totals.actual_usd);
  expect(m.sum('gbatch_estimate_usd', labels)).toBeCloseTo(report.totals.estimated_usd, 9);
  expect(m.sum('gbatch_settled_actual_usd', labels)).toBeCloseTo(report.totals.actual_usd, 9);
  expect(m.sum('gbatch_settled_estimate_usd', labels)).toBeCloseTo(report.totals.settled_estimated_usd, 9);
  const runners = status.runners as Array<{ alive: boolean; heartbeat_at: string; runner_id: string }>;
  expect(m.sum('gbatch_runners', labels)).toBe(runners.length);
  for (const r of runners)
    expect(m.sum('gbatch_runner_lease_refreshed_timestamp_seconds', { ...labels, runner: r.runner_id })).toBe(
      Date.parse(r.heartbeat_at) / 1000,
    );
  expect(m.value('gbatch_last_activity_timestamp_seconds', labels)).toBeGreaterThan(0);
  // The forecast the batch's job keeps from its start, as its journal's record holds it.
  const queries = await openQueries(state, { job: batchId });
  const kept = startForecastOf((await queries.getJob().finally(() => queries.close()))?.options);
  expect(kept).toBeDefined();
  expect(m.value('gbatch_forecast_usd', { ...labels, quantile: '0.5' })).toBe(kept!.total.p50Usd);
  expect(m.value('gbatch_forecast_usd', { ...labels, quantile: '0.9' })).toBe(kept!.total.p90Usd);
}

/** The figures of a log line's "the server's --budget: $S spent, $R reserved, $M remaining of $B". */
function budgetInLine(line: string): { spent: number; reserved: number; remaining: number; budget: number } {
  const match =
    /the server's --budget: \$([\d.]+) spent, \$([\d.]+) reserved, \$([\d.]+) remaining of \$([\d.]+)$/.exec(line);
  expect(match, line).not.toBeNull();
  const [spent, reserved, remaining, budget] = match!.slice(1).map(Number) as [number, number, number, number];
  return { spent, reserved, remaining, budget };
}

/** The server-wide --budget's series of a scrape (all absent: undefined). */
function serverBudgetOf(m: Exposition) {
  return {
    budget: m.value('gbatch_server_budget_usd'),
    spent: m.value('gbatch_server_spend_usd'),
    reserved: m.value('gbatch_server_reserved_usd'),
    remaining: m.value('gbatch_server_budget_remaining_usd'),
  };
}

describe.skipIf(!BUILT)('gbatch serve: GET /metrics', () => {
  it("publishes every batch's job as its journal counts it, behind the client or metrics tokens", async () => {
    // The simulator's clock stands still: the video tasks stay in progress until the test moves it.
    let simNow = Date.now();
    const sim = await startSim({ seed: 5, clock: { now: () => simNow }, taskSeconds: TASK_SECONDS });
    const ws = workspace('gbatch-serve-metrics-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      env: { GBATCH_METRICS_TOKENS: METRICS_TOKEN, ...FRESH },
    });
    const openai = client(server);
    const chats = await submitBatch(
      openai,
      ws.path('chats.jsonl'),
      Array.from({ length: 5 }, (_, i) => chatLine(`c${i}`, `hello ${i}`)),
      { metadata: { budget_usd: '2.50' } },
    );
    const videos = await submitBatch(
      client(server, TOKEN_B),
      ws.path('videos.jsonl'),
      [videoLine('v0', 'a harbour at dawn'), videoLine('v1', 'a harbour at dusk')],
      { endpoint: '/v1/video/generations' },
    );
    expect(await batchEnd(server, chats.id)).toBe('completed');
    // Its first run logged the forecast once: a server with no history says so, and the table's estimate it uses.
    const estimate = stdoutJson(
      await runCli(['report', chats.id, '--state', ws.path('data', 'journals', `${chats.id}.db`), '--format', 'json']),
    ).totals.estimated_usd as number;
    const said = server.stderr().match(new RegExp(`forecast for ${chats.id}: .*`, 'g')) ?? [];
    expect(said).toEqual([
      `forecast for ${chats.id}: no history: the price table's estimate $${estimate.toFixed(6)} is used`,
    ]);
    // Both videos accepted and polled: their batch is mid-way, its runner live.
    await sim.ledger.reached(
      (l) => l.requests.filter((r) => r.method === 'GET' && /\/video\/generations\/./.test(r.path)).length >= 2,
    );
    const live = parseExposition((await scrape(server, METRICS_TOKEN)).text);
    const mid = { job_name: videos.id, kind: 'video' };
    expect(
      live.sum('gbatch_rows', { ...mid, state: 'submitted' }) + live.sum('gbatch_rows', { ...mid, state: 'running' }),
    ).toBe(2);
    expect(live.value('gbatch_runners', { job_name: videos.id, alive: 'true' })).toBe(1);
    expect(live.value('gbatch_reserved_usd', { job_name: videos.id })).toBeGreaterThan(0);
    const lease = live.samples.find(
      (x) => x.name === 'gbatch_runner_lease_refreshed_timestamp_seconds' && x.labels.job_name === videos.id,
    );
    expect(lease?.value).toBeGreaterThan(Date.now() / 1000 - 60);
    // A live batch's series: the fixed ones, its one runner's lease, and a series only per state with rows.
    const liveRows = live.samples.filter((x) => x.name === 'gbatch_rows' && x.labels.job_name === videos.id);
    expect(liveRows.length).toBeGreaterThanOrEqual(1);
    expect(liveRows.length).toBeLessThanOrEqual(2);
    expect(emptyStates(live)).toEqual([]);
    expect(seriesOf(live, videos.id)).toBe(FIXED_SERIES + 1 + liveRows.length);
    simNow += (TASK_SECONDS + 1) * 1000;
    expect(await batchEnd(server, videos.id)).toBe('completed');

    expect((await scrape(server)).status).toBe(401);
    expect((await scrape(server, 'tok-wrong')).status).toBe(401);
    const refused = await fetch(metricsUrl(server));
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="gbatch metrics"');
    // A client's token reads its own batches only; a token of GBATCH_METRICS_TOKENS reads every batch.
    const ofA = await scrape(server, TOKEN_A);
    const ofB = await scrape(server, TOKEN_B);
    expect([ofA.status, ofB.status]).toEqual([200, 200]);
    expect(jobsOf(parseExposition(ofA.text))).toEqual(new Set([chats.id]));
    expect(jobsOf(parseExposition(ofB.text))).toEqual(new Set([videos.id]));
    expect(ofB.text).not.toContain(chats.id);
    const scraped = await scrape(server, METRICS_TOKEN);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseExposition(scraped.text);

    // Every series names its batch; both batches are there, each as its own journal says.
    const jobs = new Set(m.samples.map((s) => s.labels.job_name));
    expect(jobs).toEqual(new Set([chats.id, videos.id]));
    await expectBatchFigures(m, ws, chats.id);
    await expectBatchFigures(m, ws, videos.id);
    expect(m.value('gbatch_rows', { job_name: chats.id, kind: 'chat', state: 'downloaded' })).toBe(5);
    expect(m.value('gbatch_rows', { job_name: videos.id, kind: 'video', state: 'downloaded' })).toBe(2);
    expect(m.value('gbatch_budget_usd', { job_name: chats.id })).toBe(2.5);
    expect(m.value('gbatch_settled_actual_usd', { job_name: videos.id, kind: 'video' })).toBeGreaterThan(0);
    expect(emptyStates(m)).toEqual([]);
    // The batch with a budget: one series more; every row downloaded: one rows series.
    const chatRunners = m.sum('gbatch_runners', { job_name: chats.id });
    expect(seriesOf(m, chats.id)).toBe(FIXED_SERIES + 1 + chatRunners + 1);
    await server.stop();

    // Both batches ended before this server started: past its retention, only the live batch is published.
    const later = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      env: { GBATCH_METRICS_TOKENS: METRICS_TOKEN, ...FRESH, ...NO_RETENTION },
    });
    const polled = (l: { requests: readonly { method: string; path: string }[] }): number =>
      l.requests.filter((r) => r.method === 'GET' && /\/video\/generations\/./.test(r.path)).length;
    const pollsBefore = polled(sim.ledger);
    const third = await submitBatch(client(later), ws.path('third.jsonl'), [videoLine('v2', 'a harbour at noon')], {
      endpoint: '/v1/video/generations',
    });
    await sim.ledger.reached((l) => polled(l) > pollsBefore);
    const afterwards = parseExposition((await scrape(later, METRICS_TOKEN)).text);
    expect(jobsOf(afterwards)).toEqual(new Set([third.id]));
    expect(seriesOf(afterwards, third.id)).toBe(FIXED_SERIES + 1 + 1);
    expect(jobsOf(parseExposition((await scrape(later, TOKEN_A)).text))).toEqual(new Set([third.id]));
    expect(jobsOf(parseExposition((await scrape(later, TOKEN_B)).text))).toEqual(new Set());
  });

  it("the server's --budget: spent, reserved and remaining for a metrics token, and in the log at each start and end", async () => {
    const sim = await startSim({ seed: 9 });
    const ws = workspace('gbatch-serve-metrics-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--budget', '5'],
      env: { GBATCH_METRICS_TOKENS: METRICS_TOKEN, ...FRESH },
    });
    const first = await submitBatch(
      client(server),
      ws.path('a.jsonl'),
      Array.from({ length: 3 }, (_, i) => chatLine(`a${i}`, `hello ${i}`)),
    );
    const started = await server.stderrMatching(new RegExp(`${first.id}: in_progress: 3 request\\(s\\); `));
    expect(budgetInLine(started)).toEqual({ spent: 0, reserved: 0, remaining: 5, budget: 5 });
    expect(await batchEnd(server, first.id)).toBe('completed');
    const afterFirst = chatCharges(sim.ledger);
    expect(afterFirst).toHaveLength(3);
    const second = await submitBatch(client(server, TOKEN_B), ws.path('b.jsonl'), [chatLine('b0', 'bonjour')]);
    const secondStart = budgetInLine(await server.stderrMatching(new RegExp(`${second.id}: in_progress: 1 request`)));
    const billedFirst = afterFirst.reduce((a, b) => a + b, 0);
    expect(secondStart.spent).toBeCloseTo(billedFirst, 6);
    expect(secondStart.reserved).toBe(0);
    expect(secondStart.remaining).toBeCloseTo(5 - billedFirst, 6);
    expect(await batchEnd(server, second.id)).toBe('completed');
    const ended = await server.stderrMatching(new RegExp(`${second.id}: completed: `));
    // Every charge the gateway made, as its ledger records them.
    const billed = chatCharges(sim.ledger).reduce((a, b) => a + b, 0);
    expect(chatCharges(sim.ledger)).toHaveLength(4);
    expect(billed).toBeGreaterThan(billedFirst);
    const atEnd = budgetInLine(ended);
    expect(atEnd.spent).toBeCloseTo(billed, 6);
    expect(atEnd.reserved).toBe(0);
    expect(atEnd.remaining).toBeCloseTo(5 - billed, 6);
    expect(ended).not.toMatch(/journal|later run/);

    const m = parseExposition((await scrape(server, METRICS_TOKEN)).text);
    const figures = serverBudgetOf(m);
    expect(figures.budget).toBe(5);
    expect(figures.spent).toBeCloseTo(billed, 9);
    expect(figures.reserved).toBe(0);
    expect(figures.remaining).toBeCloseTo(5 - billed, 9);
    const statuses = await Promise.all([first.id, second.id].map((id) => journalView(ws, id)));
    expect(figures.spent).toBeCloseTo(
      statuses.reduce((a, v) => a + (v.status.actual_usd as number), 0),
      9,
    );
    // It sums every client's batches: a client's scrape does not have it.
    for (const token of [TOKEN_A, TOKEN_B])
      expect(serverBudgetOf(parseExposition((await scrape(server, token)).text))).toEqual({
        budget: undefined,
        spent: undefined,
        reserved: undefined,
        remaining: undefined,
      });
  });

  it('--no-auth on loopback: open without a metrics token, behind one when GBATCH_METRICS_TOKENS is set', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-metrics-');
    const open = await startServe({
      data: ws.path('open'),
      gateway: sim.baseUrl,
      args: ['--no-auth'],
      env: { GBATCH_SERVE_TOKENS: undefined },
    });
    const batch = await submitBatch(client(open, 'any'), ws.path('in.jsonl'), [chatLine('one', 'hi')]);
    expect(await batchEnd(open, batch.id)).toBe('completed');
    // A batch whose input fails validation never has a job: it is left out, and nothing is logged of it.
    const refused = await submitBatch(client(open, 'any'), ws.path('bad.jsonl'), ['{not json']);
    await open.stderrMatching(new RegExp(`${refused.id}: input failed validation`));
    const read = await scrape(open);
    expect(read.status).toBe(200);
    expect(new Set(parseExposition(read.text).samples.map((x) => x.labels.job_name))).toEqual(new Set([batch.id]));
    expect(open.stderr()).not.toMatch(/metrics: /);
    expect(
      parseExposition(read.text).value('gbatch_rows', { job_name: batch.id, kind: 'chat', state: 'downloaded' }),
    ).toBe(1);
    await open.stop();

    const guarded = await startServe({
      data: ws.path('open'),
      gateway: sim.baseUrl,
      args: ['--no-auth'],
      env: { GBATCH_SERVE_TOKENS: undefined, GBATCH_METRICS_TOKENS: METRICS_TOKEN },
    });
    expect((await scrape(guarded)).status).toBe(401);
    expect((await scrape(guarded, METRICS_TOKEN)).status).toBe(200);
  });
});

const pg = usePgSchema('gbatch_serve_metrics');
/** A database of its own: the server-wide budget sums every batch the journal holds. */
const budgetPg = usePgSchema('gbatch_serve_budget');

describe.skipIf(!BUILT || !pgAvailable())('gbatch serve on PostgreSQL: GET /metrics', () => {
  it("publishes each batch's job of the shared journal as status --json reads it, each client its own", async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-metrics-');
    // Two servers on one database (and one data folder, a shared disk), as several servers run one service.
    const options = {
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--journal', pg.url()],
      env: { GBATCH_METRICS_TOKENS: METRICS_TOKEN, ...FRESH },
    };
    const server = await startServe(options);
    const other = await startServe(options);
    const pair = await submitBatch(client(server), ws.path('a.jsonl'), [chatLine('a0', 'one'), chatLine('a1', 'two')]);
    const lone = await submitBatch(client(other, TOKEN_B), ws.path('b.jsonl'), [chatLine('b0', 'three')]);
    // Whichever server ends a batch logs its end.
    const ended = (id: string): Promise<string> => Promise.race([batchEnd(server, id), batchEnd(other, id)]);
    expect(await ended(pair.id)).toBe('completed');
    expect(await ended(lone.id)).toBe('completed');
    for (const at of [server, other]) {
      // Each client reads its own batch, whichever server it asks; the metrics token reads both.
      expect(jobsOf(parseExposition((await scrape(at, TOKEN_A)).text))).toEqual(new Set([pair.id]));
      expect(jobsOf(parseExposition((await scrape(at, TOKEN_B)).text))).toEqual(new Set([lone.id]));
    }
    const scraped = await scrape(other, METRICS_TOKEN);
    expect(scraped.status).toBe(200);
    const m = parseExposition(scraped.text);
    expect(jobsOf(m)).toEqual(new Set([pair.id, lone.id]));
    expect(emptyStates(m)).toEqual([]);
    for (const id of [pair.id, lone.id]) {
      const status = stdoutJson(await runCli(['status', id, '--journal', pg.url(), '--json']));
      const labels = { job_name: id };
      for (const s of ITEM_STATES) expect(m.sum('gbatch_rows', { ...labels, state: s }), s).toBe(status.counts[s] ?? 0);
      const queries = await openQueries(pg.url(), { job: id });
      const items: Item[] = [];
      try {
        for await (const item of queries.iterate()) items.push(item);
      } finally {
        await queries.close();
      }
      expect(rowsByKind(m, ITEM_KINDS, ITEM_STATES, labels)).toEqual(withoutEmpty(tallyByKind(items)));
      expect(m.value('gbatch_spend_usd', labels)).toBe(status.actual_usd);
      expect(m.value('gbatch_reserved_usd', labels)).toBe(status.reserved_usd);
      const runners = (status.runners as unknown[]).length;
      expect(seriesOf(m, id)).toBe(FIXED_SERIES + runners + 1);
    }
    expect(m.sum('gbatch_rows', { job_name: pair.id, kind: 'chat', state: 'downloaded' })).toBe(2);
    expect((await scrape(server)).status).toBe(401);

    // A third server, started after both batches ended, is past their retention: it publishes neither.
    const later = await startServe({ ...options, env: { ...options.env, ...NO_RETENTION } });
    const afterwards = await scrape(later, METRICS_TOKEN);
    expect(afterwards.status).toBe(200);
    expect(jobsOf(parseExposition(afterwards.text))).toEqual(new Set());
    expect(jobsOf(parseExposition((await scrape(other, METRICS_TOKEN)).text))).toEqual(new Set([pair.id, lone.id]));
  });
  it("the server's --budget, all servers' batches together, on every server sharing the journal", async () => {
    const sim = await startSim({ seed: 9 });
    const ws = workspace('gbatch-serve-metrics-');
    const options = {
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--journal', budgetPg.url(), '--budget', '5'],
      env: { GBATCH_METRICS_TOKENS: METRICS_TOKEN, ...FRESH },
    };
    const server = await startServe(options);
    const other = await startServe(options);
    const ended = (id: string): Promise<string> =>
      Promise.race([server, other].map((at) => at.stderrMatching(new RegExp(`${id}: completed: `))));
    const first = await submitBatch(client(server), ws.path('a.jsonl'), [chatLine('a0', 'one'), chatLine('a1', 'two')]);
    await ended(first.id);
    const second = await submitBatch(client(other, TOKEN_B), ws.path('b.jsonl'), [chatLine('b0', 'three')]);
    const line = await ended(second.id);
    const billed = chatCharges(sim.ledger).reduce((a, b) => a + b, 0);
    expect(chatCharges(sim.ledger)).toHaveLength(3);
    const atEnd = budgetInLine(line);
    expect(atEnd.spent).toBeCloseTo(billed, 6);
    expect(atEnd.remaining).toBeCloseTo(5 - billed, 6);
    for (const at of [server, other]) {
      const figures = serverBudgetOf(parseExposition((await scrape(at, METRICS_TOKEN)).text));
      expect(figures.budget).toBe(5);
      expect(figures.spent).toBeCloseTo(billed, 9);
      expect(figures.reserved).toBe(0);
      expect(figures.remaining).toBeCloseTo(5 - billed, 9);
      expect(serverBudgetOf(parseExposition((await scrape(at, TOKEN_A)).text)).spent).toBeUndefined();
    }
  });
});
