// The run monitor keeps the snapshot from the lanes' events: counts move with each transition, video
// tasks' ages and durations come from acceptance to success, errors group by cause, money by kind.
import { EventEmitter } from 'node:events';
import { expect, test } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import type { Item, ItemError } from '../../../src/journal/index.js';
import { BudgetGuard } from '../../../src/pipeline/budget-guard.js';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { RateRing } from '../../../src/pipeline/monitor/rate-ring.js';
import { RunMonitor, type MonitorContext } from '../../../src/pipeline/monitor/run-monitor.js';
import type { RunSnapshot } from '../../../src/core/run-snapshot.js';
import { makeItem } from '../../helpers/journal-fixtures.js';

const T0 = 1_000_000;

function item(id: string, kind: Item['kind'], state: ItemState, extra: Partial<Item> = {}): Item {
  return makeItem({
    id,
    kind,
    model: kind === 'video' ? 'video-mini' : 'chat-small',
    state,
    resolution: kind === 'video' ? '480p' : null,
    estimateUsd: kind === 'video' ? 1 : 0.01,
    reservedUsd: 0,
    priceSnapshot: null,
    updatedAt: T0,
    ...extra,
  });
}

function setup(rows: Item[], options: { pausedUntil?: number; submittedAt?: Record<string, number> } = {}) {
  const clock = new ManualClock(T0);
  const events = new EventEmitter<RunEvents>();
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, rows.filter((r) => r.state === s).length])) as Record<
    ItemState,
    number
  >;
  const journal = {
    counts: async () => ({ ...counts }),
    reportSums: async () => ({
      total: {},
      groups: [
        { model: 'chat-small', resolution: null, estimated: 0.4, settled_estimated: 0, actual: null },
        { model: 'video-mini', resolution: '480p', estimated: 4, settled_estimated: 0, actual: null },
      ],
    }),
    async *iterate(filter: { states?: ItemState[]; kinds?: string[] }) {
      for (const r of rows)
        if ((!filter.states || filter.states.includes(r.state)) && (!filter.kinds || filter.kinds.includes(r.kind)))
          yield r;
    },
    lastSubmitTimes: async (ids: string[]) =>
      new Map(ids.filter((id) => options.submittedAt?.[id] !== undefined).map((id) => [id, options.submittedAt![id]!])),
  };
  const ctx = {
    journal,
    clock,
    events,
    pricing: BUILTIN_PRICING,
    budget: new BudgetGuard(10, { reservedUsd: 0, actualUsd: 0 }),
    gateway: { pausedUntil: () => options.pausedUntil ?? 0 },
    submitStop: new AbortController(),
    stop: new AbortController(),
  } as unknown as MonitorContext;
  const monitor = new RunMonitor(
    ctx,
    { polls: () => 7, downloads: () => ({ in_flight: 1, queued: 0, failed: 0 }) },
    { job: 'nightly', progressIntervalMs: 600_000, snapshotIntervalMs: 600_000 },
  );
  const move = (row: Item, to: ItemState, extra: Partial<Item> = {}): Item => {
    const from = row.state;
    Object.assign(row, extra, { state: to });
    events.emit('transition', { ...row }, from);
    return row;
  };
  return { clock, events, monitor, move, ctx };
}

test('counts, lanes and phase follow the transitions; answers stored in bulk move to downloaded', async () => {
  const rows = [
    item('c1', 'chat', 'pending'),
    item('c2', 'chat', 'pending'),
    item('c3', 'chat', 'pending'),
    item('v1', 'video', 'pending'),
  ];
  const { monitor, move, events, ctx } = setup(rows);
  const first: RunSnapshot[] = [];
  events.on('snapshot', (s) => first.push(s));
  await monitor.start();
  expect(first).toHaveLength(1);
  expect(first[0]).toMatchObject({
    phase: 'submitting',
    total: 4,
    tasks: { to_send: 1 },
    lanes: { submit: { queued: 4, in_flight: 0 } },
  });
  void ctx.budget.changed(); // a submission waits for headroom
  expect(monitor.snapshot().lanes.submit.waiting_for_budget).toBe(true);
  ctx.budget.settle(0, 0);
  expect(monitor.snapshot().lanes.submit.waiting_for_budget).toBe(false);
  move(rows[0]!, 'submitting');
  move(rows[0]!, 'pending', { lastError: { status: 429, code: 'rate_limit_exceeded', message: 'slow down' } });
  for (const r of rows) move(r, 'submitting');
  move(rows[0]!, 'succeeded', { actualUsd: 0.005 });
  move(rows[1]!, 'succeeded', { actualUsd: 0.005 });
  move(rows[2]!, 'rejected', { lastError: { status: 400, code: 'invalid_request', message: "field 'x': bad" } });
  move(rows[3]!, 'submitted', { taskId: 't1' });
  let s = monitor.snapshot();
  expect(s.counts).toMatchObject({ pending: 0, submitting: 0, submitted: 1, succeeded: 2, rejected: 1 });
  expect(s.lanes.submit).toEqual({ queued: 0, in_flight: 0, done: 4, retries: 1, waiting_for_budget: false });
  expect(s.tasks).toMatchObject({ to_send: 0, in_flight: 1 });
  expect(s.phase).toBe('waiting');
  expect(s.recent.sent).toBe(4);
  expect(s.recent.finished).toBe(3); // two answers and one refusal; the video is not done until downloaded
  events.emit('stored', ['c1', 'c2']);
  s = monitor.snapshot();
  expect(s.counts).toMatchObject({ succeeded: 0, downloaded: 2 });
  expect(s.errors.map((g) => [g.cause, g.count, g.last_message])).toEqual([
    ['rejected 400 invalid_request', 1, "field 'x': bad"],
    ['retried 429 rate_limit_exceeded', 1, 'slow down'],
  ]);
  // Money by kind: chat settled at half its estimate; the refused row leaves the estimate still to spend.
  const { text, video } = s.money.by_kind!;
  expect(text).toEqual({ estimate_usd: 0.39, settled_estimate_usd: 0.02, settled_actual_usd: 0.01 });
  expect(video).toEqual({ estimate_usd: 4, settled_estimate_usd: 0, settled_actual_usd: 0 });
  monitor.stop();
});

test('a refused key (401) is no retry: rows back in pending are counted under "key refused", and the submit lane counts no retry', async () => {
  const rows = [item('c1', 'chat', 'pending'), item('c2', 'chat', 'pending'), item('c3', 'chat', 'pending')];
  const { monitor, move } = setup(rows);
  await monitor.start();
  for (const r of rows) move(r, 'submitting');
  for (const r of rows)
    move(r, 'pending', { lastError: { status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided' } });
  const s = monitor.snapshot();
  expect(s.errors.map((g) => [g.cause, g.count])).toEqual([['key refused 401 invalid_api_key', 3]]);
  expect(s.lanes.submit.retries).toBe(0);
  monitor.stop();
});

test("video tasks: ages from acceptance (or an earlier run's submission), durations to success, failures by cause", async () => {
  const adopted = item('v0', 'video', 'running', { taskId: 't0' });
  const rows = [
    adopted,
    item('v1', 'video', 'submitting'),
    item('v2', 'video', 'submitting'),
    item('v3', 'video', 'submitting'),
  ];
  const { monitor, move, clock, events } = setup(rows, { submittedAt: { v0: T0 - 90_000 }, pausedUntil: T0 + 70_000 });
  await monitor.start();
  await new Promise((resolve) => setImmediate(resolve)); // the earlier run's submission times arrive
  move(rows[1]!, 'submitted');
  await clock.advance(10_000);
  move(rows[2]!, 'submitted');
  move(rows[3]!, 'submitted');
  await clock.advance(20_000);
  let s = monitor.snapshot();
  expect(s.tasks).toMatchObject({ in_flight: 4, oldest_age_s: 120, youngest_age_s: 20, durations: { count: 0 } });
  expect(s.paused_until).toBe(T0 + 70_000);
  move(rows[1]!, 'running');
  move(rows[1]!, 'succeeded', { actualUsd: 0.8 });
  move(rows[2]!, 'failed', {
    actualUsd: 0,
    lastError: { message: 'Simulated upstream failure; refunded' } as ItemError,
  });
  await clock.advance(40_000);
  move(rows[3]!, 'succeeded', { actualUsd: 0.9 });
  s = monitor.snapshot();
  expect(s.tasks).toMatchObject({
    in_flight: 1,
    oldest_age_s: 160,
    youngest_age_s: 160,
    durations: { count: 2, p50_s: 30, p90_s: 60, max_s: 60 },
  });
  expect(s.paused_until).toBeNull(); // the pause is over by now
  expect(s.errors).toEqual([
    {
      cause: 'task failed Simulated upstream failure',
      count: 1,
      last_message: 'Simulated upstream failure; refunded',
      last_at: T0 + 30_000,
    },
  ]);
  // Polls and downloads that failed (the rows keep their state) are causes of their own.
  events.emit('laneError', 'poll', { status: 503, type: 'server_error', message: 'upstream busy' });
  events.emit('laneError', 'poll', { status: 503, type: 'server_error', message: 'upstream busy again' });
  events.emit('laneError', 'download', {
    code: 'GBATCH_TIMEOUT',
    message: 'GET /v1/video/generations/t1/content failed after the request was sent: timeout',
  });
  expect(monitor.snapshot().errors.map((g) => [g.cause, g.count, g.last_message])).toEqual([
    [
      'download failed GBATCH_TIMEOUT',
      1,
      'GET /v1/video/generations/t1/content failed after the request was sent: timeout',
    ],
    ['poll failed 503 server_error', 2, 'upstream busy again'],
    ['task failed Simulated upstream failure', 1, 'Simulated upstream failure; refunded'],
  ]);
  expect(s.money.by_kind!.video).toEqual({ estimate_usd: 4, settled_estimate_usd: 3, settled_actual_usd: 1.7 });
  monitor.finish({ ...s.counts, running: 0, downloaded: 3 });
});

test("the final snapshot carries the journal's counts and phase done; nothing is emitted after it", async () => {
  const rows = [item('c1', 'chat', 'pending')];
  const { monitor, events, move } = setup(rows);
  const seen: RunSnapshot[] = [];
  events.on('snapshot', (s) => seen.push(s));
  await monitor.start();
  monitor.finish({
    ...(Object.fromEntries(ITEM_STATES.map((st) => [st, 0])) as Record<ItemState, number>),
    downloaded: 1,
  });
  expect(seen.at(-1)).toMatchObject({ phase: 'done', total: 1, counts: { downloaded: 1 } });
  move(rows[0]!, 'submitting'); // a late event after the end changes nothing
  expect(seen).toHaveLength(2);
  expect(events.listenerCount('transition')).toBe(0);
});

test("the budget shown is the job's as the run last read it: lowered by another run, the snapshot says so", async () => {
  const { monitor, ctx } = setup([item('c1', 'chat', 'pending')]);
  await monitor.start();
  expect(monitor.snapshot().money.budget_usd).toBe(10);
  ctx.budget.observe({ reservedUsd: 0, actualUsd: 0, inFlight: false, budgetUsd: 3 }, ctx.budget.mark());
  expect(monitor.snapshot().money.budget_usd).toBe(3);
});

test('a ring of time buckets: a rate over the last minutes in constant memory', () => {
  const ring = new RateRing(5_000, 60);
  for (let t = 0; t < 600_000; t += 1_000) ring.add(t);
  const recent = ring.recent(600_000, 0); // the last 5 minutes (the bucket just begun included): one a second
  expect(recent.windowMs).toBeGreaterThan(290_000);
  expect(recent.windowMs).toBeLessThanOrEqual(300_000);
  expect(recent.count / (recent.windowMs / 1000)).toBe(1);
  expect(ring.recent(900_000, 0).count).toBe(0); // idle for 5 minutes: nothing recent
  const young = new RateRing(5_000, 60);
  for (let t = 100_000; t < 110_000; t += 1_000) young.add(t);
  expect(young.recent(110_000, 100_000)).toEqual({ windowMs: 10_000, count: 10 }); // since the run began, not before
});

test('a move the counts already hold is not counted twice: the total stays as the journal counts it', async () => {
  // The journal's counts were read after these rows were answered and stored (another runner's answers, or a
  // read that raced the commit): the events that follow must not add rows the view never had in `from`.
  const rows = [item('c1', 'chat', 'downloaded'), item('c2', 'chat', 'downloaded'), item('c3', 'chat', 'pending')];
  const { monitor, events } = setup(rows);
  await monitor.start();
  events.emit('stored', ['c1', 'c2']);
  events.emit('transition', { ...rows[0]!, state: 'succeeded' }, 'submitting');
  const s = monitor.snapshot();
  expect(s.total).toBe(3);
  expect(s.counts).toMatchObject({ pending: 1, submitting: 0, succeeded: 0, downloaded: 2 });
  monitor.stop();
});
