// The run's metrics from its events alone: gauges follow the latest snapshot, counters count the
// lanes' events, and the text parses strictly. No run, no clock: events are emitted by hand.
import { EventEmitter } from 'node:events';
import { expect, test } from 'vitest';
import type { RunEvents } from '../../src/pipeline/context.js';
import { RunMetrics, statusClass } from '../../src/metrics/run-metrics.js';
import { ITEM_STATES } from '../../src/core/states.js';
import { makeItem } from '../helpers/journal-fixtures.js';
import { parseExposition } from '../helpers/prometheus-text.js';
import { counts, snapshot, T0 } from '../helpers/snapshot-fixture.js';
import type { KindCounts } from '../../src/journal/index.js';

function attached(
  now = () => T0,
  readRows?: () => Promise<KindCounts>,
): { metrics: RunMetrics; events: EventEmitter<RunEvents> } {
  const events = new EventEmitter<RunEvents>();
  const metrics = new RunMetrics(now, readRows);
  metrics.attach(events);
  return { metrics, events };
}

async function read(metrics: RunMetrics) {
  return parseExposition(await metrics.text());
}

test('gauges are the latest snapshot: money in USD, the budget only when there is one', async () => {
  const { metrics, events } = attached();
  events.emit('snapshot', snapshot());
  events.emit('snapshot', snapshot({ counts: counts({ pending: 3, downloaded: 7 }), money: { budget_usd: null } }));
  const m = await read(metrics);
  expect(m.value('gbatch_spend_usd')).toBe(18.4);
  expect(m.value('gbatch_reserved_usd')).toBe(9.1);
  expect(m.value('gbatch_budget_usd')).toBeUndefined();
  expect(m.value('gbatch_estimate_usd', { kind: 'video' })).toBe(50);
  expect(m.value('gbatch_settled_estimate_usd', { kind: 'video' })).toBe(19);
  expect(m.value('gbatch_settled_actual_usd', { kind: 'text' })).toBe(0.5);
  expect(m.value('gbatch_run_phase', { phase: 'submitting' })).toBe(1);
  expect(m.sum('gbatch_run_phase')).toBe(1);
  expect(m.value('gbatch_run_start_timestamp_seconds')).toBe(T0 / 1000);
  expect(m.value('gbatch_video_tasks_in_flight')).toBe(156);
  expect(m.value('gbatch_last_success_timestamp_seconds')).toBeUndefined();
});

test('rows by state and kind are read from the journal at each scrape, once the run has figures', async () => {
  let journal: KindCounts = { chat: counts({ pending: 3 }), responses: counts({ downloaded: 2 }), video: counts() };
  let reads = 0;
  const { metrics, events } = attached(
    () => T0,
    async () => {
      reads++;
      if (journal === undefined) throw new Error('journal unreadable');
      return journal;
    },
  );
  expect((await read(metrics)).samples.filter((s) => s.name === 'gbatch_rows')).toHaveLength(0);
  expect(reads).toBe(0);
  events.emit('snapshot', snapshot());
  let m = await read(metrics);
  expect(m.samples.filter((s) => s.name === 'gbatch_rows')).toHaveLength(ITEM_STATES.length * 3);
  for (const kind of ['chat', 'responses', 'video'] as const)
    for (const state of ITEM_STATES) expect(m.value('gbatch_rows', { state, kind })).toBe(journal[kind][state]);
  journal = { ...journal, chat: counts({ pending: 1, downloaded: 2 }) };
  m = await read(metrics);
  expect(m.value('gbatch_rows', { state: 'pending', kind: 'chat' })).toBe(1);
  expect(m.sum('gbatch_rows', { state: 'downloaded' })).toBe(4);
  // A read that fails leaves the figures of the last one.
  journal = undefined as unknown as KindCounts;
  m = await read(metrics);
  expect(m.sum('gbatch_rows', { state: 'downloaded' })).toBe(4);
  expect(reads).toBe(3);
});

test("the snapshot's running totals count once: polls and download failures never double", async () => {
  const { metrics, events } = attached();
  events.emit('snapshot', snapshot({ lanes: { poll: { tasks: 1, polls: 10 } } }));
  events.emit('snapshot', snapshot({ lanes: { poll: { tasks: 1, polls: 10 } } }));
  events.emit(
    'snapshot',
    snapshot({ lanes: { poll: { tasks: 1, polls: 25 }, download: { in_flight: 0, queued: 0, done: 0, failed: 2 } } }),
  );
  const m = await read(metrics);
  expect(m.value('gbatch_video_polls_total')).toBe(25);
  expect(m.value('gbatch_download_failures_total')).toBe(2);
});

test('requests by lane and status class; each 429 is a pause', async () => {
  const { metrics, events } = attached();
  events.emit('request', { lane: 'submit', status: 200 });
  events.emit('request', { lane: 'submit', status: 429 });
  events.emit('request', { lane: 'submit', status: 429 });
  events.emit('request', { lane: 'poll', status: 503 });
  events.emit('request', { lane: 'download', status: null });
  const m = await read(metrics);
  expect(m.value('gbatch_requests_total', { lane: 'submit', status_class: '2xx' })).toBe(1);
  expect(m.value('gbatch_requests_total', { lane: 'submit', status_class: '4xx' })).toBe(2);
  expect(m.value('gbatch_requests_total', { lane: 'poll', status_class: '5xx' })).toBe(1);
  expect(m.value('gbatch_requests_total', { lane: 'download', status_class: 'none' })).toBe(1);
  expect(m.value('gbatch_rate_limit_pauses_total')).toBe(2);
  expect(statusClass(302)).toBe('3xx');
});

test('submissions by outcome; video durations from acceptance to success; bytes stored', async () => {
  let now = T0;
  const { metrics, events } = attached(() => now);
  const video = makeItem({ id: 'v1', kind: 'video' });
  events.emit('transition', makeItem({ id: 'c1', state: 'succeeded' }), 'submitting');
  events.emit(
    'transition',
    makeItem({ id: 'c2', state: 'pending', lastError: { status: 429, message: 'slow' } }),
    'submitting',
  );
  events.emit('transition', makeItem({ id: 'c3', state: 'uncertain' }), 'submitting');
  events.emit('transition', makeItem({ id: 'c4', state: 'rejected' }), 'submitting');
  events.emit('transition', { ...video, state: 'submitted' }, 'submitting');
  now += 90_000;
  events.emit('transition', { ...video, state: 'running' }, 'submitted');
  now += 30_000;
  events.emit('transition', { ...video, state: 'succeeded' }, 'running');
  events.emit('transition', { ...video, state: 'downloaded', bytes: 123_456 }, 'succeeded');
  const m = await read(metrics);
  expect(m.value('gbatch_submissions_total', { outcome: 'answered' })).toBe(1);
  expect(m.value('gbatch_submissions_total', { outcome: 'retried' })).toBe(1);
  expect(m.value('gbatch_submissions_total', { outcome: 'uncertain' })).toBe(1);
  expect(m.value('gbatch_submissions_total', { outcome: 'rejected' })).toBe(1);
  expect(m.value('gbatch_submissions_total', { outcome: 'accepted' })).toBe(1);
  expect(m.value('gbatch_video_task_duration_seconds_count')).toBe(1);
  expect(m.value('gbatch_video_task_duration_seconds_sum')).toBe(120);
  expect(m.value('gbatch_video_task_duration_seconds_bucket', { le: '60' })).toBe(0);
  expect(m.value('gbatch_video_task_duration_seconds_bucket', { le: '120' })).toBe(1);
  expect(m.value('gbatch_downloads_total')).toBe(1);
  expect(m.value('gbatch_download_bytes_total')).toBe(123_456);
});

test('journal commits and lease refreshes', async () => {
  const { metrics, events } = attached(() => T0 + 5_000);
  events.emit('commit', 0.004, 12);
  events.emit('commit', 0.2, 1);
  events.emit('lease', 'renewed');
  events.emit('lease', 'skipped');
  const m = await read(metrics);
  expect(m.value('gbatch_journal_commit_duration_seconds_count')).toBe(2);
  expect(m.value('gbatch_journal_commit_duration_seconds_bucket', { le: '0.005' })).toBe(1);
  expect(m.value('gbatch_runner_lease_refreshes_total', { outcome: 'renewed' })).toBe(1);
  expect(m.value('gbatch_runner_lease_refreshes_total', { outcome: 'skipped' })).toBe(1);
  expect(m.value('gbatch_runner_lease_refreshed_timestamp_seconds')).toBe((T0 + 5_000) / 1000);
});

test('detached, it counts nothing more; a success adds the last-success time', async () => {
  const { metrics, events } = attached();
  events.emit('request', { lane: 'submit', status: 200 });
  metrics.detach();
  events.emit('request', { lane: 'submit', status: 200 });
  expect(events.listenerCount('snapshot')).toBe(0);
  metrics.markSuccess(T0);
  const m = await read(metrics);
  expect(m.value('gbatch_requests_total', { lane: 'submit', status_class: '2xx' })).toBe(1);
  expect(m.value('gbatch_last_success_timestamp_seconds')).toBe(T0 / 1000);
});

test('two runs in one process keep separate figures (a registry per run)', async () => {
  const a = attached();
  const b = attached();
  a.events.emit('request', { lane: 'poll', status: 200 });
  expect((await read(a.metrics)).value('gbatch_requests_total', { lane: 'poll', status_class: '2xx' })).toBe(1);
  expect((await read(b.metrics)).value('gbatch_requests_total', { lane: 'poll', status_class: '2xx' })).toBeUndefined();
});

test('before the first snapshot (the ingest), no money, rows or phase are published: absent, not 0', async () => {
  const { metrics, events } = attached();
  let m = await read(metrics);
  for (const name of ['gbatch_spend_usd', 'gbatch_reserved_usd', 'gbatch_budget_usd', 'gbatch_rate_limit_paused'])
    expect(m.value(name), name).toBeUndefined();
  expect(m.sum('gbatch_rows')).toBe(0);
  expect(m.samples.filter((s) => s.name === 'gbatch_rows')).toHaveLength(0);
  events.emit('snapshot', snapshot({ money: { actual_usd: 0, reserved_usd: 0 } }));
  m = await read(metrics);
  expect(m.value('gbatch_spend_usd')).toBe(0);
  expect(m.value('gbatch_rate_limit_paused')).toBe(0);
});
