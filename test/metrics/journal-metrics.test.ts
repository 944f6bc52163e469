// The journal exporter on real SQLite journals: every job's figures, read when scraped, equal what
// `status --json` says of the same journal; every series names its job; a journal that cannot be read
// leaves its job out of that scrape only.
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { ITEM_KINDS, ITEM_STATES } from '../../src/core/states.js';
import { gatherStatus } from '../../src/cli/status/status-data.js';
import { statusJson } from '../../src/cli/status/status-json.js';
import { openQueries, type Item, type JournalQueries, type JournalStore } from '../../src/journal/index.js';
import { journalMetrics, type MetricsJob } from '../../src/metrics/journal-metrics.js';
import { entry, useTempDir } from '../helpers/journal-fixtures.js';
import { openSqliteStore } from '../helpers/journal-raw.js';
import { tallyByKind, withoutEmpty } from '../helpers/journal-read.js';
import { parseExposition, rowsByKind, type Exposition } from '../helpers/prometheus-text.js';

/** An SQLite journal read-only, as `status` opens it (one job per file: the name is not asked). */
const readOnly = (path: string): Promise<JournalQueries> => openQueries(path, { job: '' });

const temp = useTempDir('gbatch-journal-metrics-');
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
let stores: JournalStore[] = [];
afterEach(async () => {
  for (const store of stores) await store.close();
  stores = [];
});

async function journal(name: string, budgetUsd?: number): Promise<{ path: string; store: JournalStore }> {
  const path = join(temp.dir(), `${name}.db`);
  const store = openSqliteStore(path, { clock: new ManualClock(T0) });
  stores.push(store);
  await store.saveJob({
    name,
    manifest: `${name}.jsonl`,
    options: {},
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
  });
  return { path, store };
}

async function ingest(store: JournalStore, entries: Parameters<typeof entry>[0][], kind = 'chat'): Promise<void> {
  const writer = await store.beginIngest();
  await writer.add(entries.map((id) => entry(id, { kind: kind as Item['kind'] })));
  await writer.commit();
}

/** Two jobs mid-way: text answered, settled and refused, video accepted and settled; one journal without a job. */
async function campaign(): Promise<Record<string, string>> {
  const alpha = await journal('alpha', 12.5);
  await ingest(alpha.store, ['a1', 'a2', 'a3']);
  await ingest(alpha.store, ['ar1', 'ar2'], 'responses');
  await ingest(alpha.store, ['av1', 'av2'], 'video');
  await alpha.store.membership.acquire();
  await alpha.store.applyTransitions([
    { id: 'a1', event: 'submit', patch: { reservedUsd: 0.02 } },
    { id: 'a2', event: 'submit', patch: { reservedUsd: 0.02 } },
    { id: 'ar1', event: 'submit', patch: { reservedUsd: 0.03 } },
    { id: 'av1', event: 'submit', patch: { reservedUsd: 0.6 } },
    { id: 'av2', event: 'submit', patch: { reservedUsd: 0.6 } },
  ]);
  await alpha.store.applyTransitions([
    { id: 'a1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.013 } },
    { id: 'a2', event: 'reject', patch: { reservedUsd: 0 } },
    { id: 'av1', event: 'accept', patch: { taskId: 'task-1' } },
    { id: 'av2', event: 'accept', patch: { taskId: 'task-2' } },
  ]);
  await alpha.store.applyTransitions([{ id: 'av2', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.55 } }]);
  const beta = await journal('beta');
  await ingest(beta.store, ['b1'], 'video');
  const empty = join(temp.dir(), 'empty.db');
  stores.push(openSqliteStore(empty));
  return { alpha: alpha.path, beta: beta.path, empty };
}

/** A source that opens each journal read-only for one scrape, as `serve` does, and counts what it closed. */
function source(paths: Record<string, string>, owners: Record<string, string> = {}) {
  const counted = { scrapes: 0, released: 0 };
  return {
    counted,
    async jobs(): Promise<MetricsJob[]> {
      counted.scrapes++;
      return Promise.all(
        Object.entries(paths).map(async ([job, path]) => {
          const queries = await readOnly(path);
          return {
            job,
            queries,
            ...(owners[job] !== undefined ? { owner: owners[job] } : {}),
            release: async () => {
              counted.released++;
              await queries.close();
            },
          };
        }),
      );
    },
  };
}

async function statusOf(path: string): Promise<Record<string, unknown> & { counts: Record<string, number> }> {
  const queries = await readOnly(path);
  try {
    return statusJson(
      await gatherStatus(queries, { journal: { adapter: 'sqlite', file: path, isDefault: false } }),
    ) as Record<string, unknown> & {
      counts: Record<string, number>;
    };
  } finally {
    await queries.close();
  }
}

async function itemsOf(path: string): Promise<Item[]> {
  const queries = await readOnly(path);
  try {
    const items: Item[] = [];
    for await (const item of queries.iterate()) items.push(item);
    return items;
  } finally {
    await queries.close();
  }
}

function expectEqualsStatus(m: Exposition, job: string, status: Record<string, unknown>, items: Item[]): void {
  const labels = { job_name: job };
  const counts = status.counts as Record<string, number>;
  for (const state of ITEM_STATES) expect(m.sum('gbatch_rows', { ...labels, state }), state).toBe(counts[state]);
  expect(rowsByKind(m, ITEM_KINDS, ITEM_STATES, labels)).toEqual(withoutEmpty(tallyByKind(items)));
  expect(m.value('gbatch_spend_usd', labels)).toBe(status.actual_usd);
  expect(m.value('gbatch_reserved_usd', labels)).toBe(status.reserved_usd);
  expect(m.value('gbatch_budget_usd', labels)).toBe(status.budget_usd ?? undefined);
  expect(m.sum('gbatch_estimate_usd', labels)).toBeCloseTo(status.estimated_usd as number, 9);
  expect(m.sum('gbatch_settled_actual_usd', labels)).toBeCloseTo(status.actual_usd as number, 9);
  const runners = status.runners as Array<{
    runner_id: string;
    host: string;
    pid: number;
    alive: boolean;
    heartbeat_at: string;
  }>;
  expect(m.value('gbatch_runners', { ...labels, alive: 'true' })).toBe(runners.filter((r) => r.alive).length);
  expect(m.value('gbatch_runners', { ...labels, alive: 'false' })).toBe(runners.filter((r) => !r.alive).length);
  for (const r of runners)
    expect(
      m.value('gbatch_runner_lease_refreshed_timestamp_seconds', {
        ...labels,
        runner: r.runner_id,
        host: r.host,
        pid: String(r.pid),
      }),
    ).toBe(Date.parse(r.heartbeat_at) / 1000);
}

test("every job's figures equal status --json of its journal, read afresh at each scrape", async () => {
  const paths = await campaign();
  const jobs = source(paths);
  const exporter = journalMetrics(jobs, { paceRatio: 0 });
  let m = parseExposition(await exporter.metrics());
  expect(jobs.counted).toEqual({ scrapes: 1, released: 3 });
  // Every series names its job; the journal without a job publishes nothing.
  for (const sample of m.samples) expect(['alpha', 'beta'], JSON.stringify(sample)).toContain(sample.labels.job_name);
  for (const job of ['alpha', 'beta'])
    expectEqualsStatus(m, job, await statusOf(paths[job]!), await itemsOf(paths[job]!));
  expect(m.sum('gbatch_rows', { job_name: 'alpha' })).toBe(7);
  expect(m.value('gbatch_rows', { job_name: 'alpha', kind: 'responses', state: 'submitting' })).toBe(1);
  expect(m.value('gbatch_rows', { job_name: 'alpha', kind: 'video', state: 'succeeded' })).toBe(1);
  expect(m.value('gbatch_settled_actual_usd', { job_name: 'alpha', kind: 'video' })).toBe(0.55);
  expect(m.value('gbatch_settled_actual_usd', { job_name: 'alpha', kind: 'text' })).toBe(0.013);
  expect(m.value('gbatch_budget_usd', { job_name: 'alpha' })).toBe(12.5);
  expect(m.value('gbatch_budget_usd', { job_name: 'beta' })).toBeUndefined();
  expect(m.value('gbatch_runners', { job_name: 'alpha', alive: 'true' })).toBe(1);
  expect(m.value('gbatch_last_activity_timestamp_seconds', { job_name: 'alpha' })).toBe(T0 / 1000);

  // The journal moves on: the next scrape reads it again.
  const alpha = stores[0]!;
  await alpha.applyTransitions([{ id: 'ar1', event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.021 } }]);
  m = parseExposition(await exporter.metrics());
  expect(jobs.counted).toEqual({ scrapes: 2, released: 6 });
  expect(m.value('gbatch_rows', { job_name: 'alpha', kind: 'responses', state: 'succeeded' })).toBe(1);
  expectEqualsStatus(m, 'alpha', await statusOf(paths.alpha!), await itemsOf(paths.alpha!));
});

test('the collect callbacks of one scrape share one read of the journals', async () => {
  const paths = await campaign();
  const jobs = source(paths);
  const exporter = journalMetrics(jobs, { paceRatio: 0 });
  await Promise.all([exporter.metrics(), exporter.metrics()]);
  expect(jobs.counted.scrapes).toBeLessThanOrEqual(2);
  const before = jobs.counted.scrapes;
  await exporter.metrics();
  expect(jobs.counted.scrapes).toBe(before + 1);
  expect(exporter.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
});

test("a scrape for one owner prints only that owner's jobs, also while another owner's scrape runs", async () => {
  const paths = await campaign();
  const exporter = journalMetrics(source(paths, { alpha: 'owner-a', beta: 'owner-b' }), { paceRatio: 0 });
  const [ofA, ofB, all, ofNobody] = (
    await Promise.all([
      exporter.metrics({ owner: 'owner-a' }),
      exporter.metrics({ owner: 'owner-b' }),
      exporter.metrics(),
      exporter.metrics({ owner: 'owner-c' }),
    ])
  ).map(parseExposition);
  const jobs = (m: Exposition): Set<string | undefined> => new Set(m.samples.map((x) => x.labels.job_name));
  expect(jobs(ofA!)).toEqual(new Set(['alpha']));
  expect(jobs(ofB!)).toEqual(new Set(['beta']));
  expect(jobs(all!)).toEqual(new Set(['alpha', 'beta']));
  expect(ofNobody!.samples).toEqual([]);
  expect(ofA!.sum('gbatch_rows', { job_name: 'alpha' })).toBe(7);
});

test('a state without rows has no series: one series per kind and state that has rows', async () => {
  const paths = await campaign();
  const m = parseExposition(await journalMetrics(source(paths), { paceRatio: 0 }).metrics());
  const rows = m.samples.filter((x) => x.name === 'gbatch_rows');
  expect(rows.filter((x) => x.value === 0)).toEqual([]);
  expect(rows.filter((x) => x.labels.job_name === 'alpha').length).toBe(
    Object.values(tallyByKind(await itemsOf(paths.alpha!)))
      .flatMap((states) => Object.values(states))
      .filter((n) => n > 0).length,
  );
});

test('a journal that cannot be read leaves its job out of that scrape, and is told of', async () => {
  const paths = await campaign();
  const broken = await readOnly(paths.beta!);
  await broken.close();
  const errors: string[] = [];
  const exporter = journalMetrics(
    {
      async jobs() {
        const alpha = await readOnly(paths.alpha!);
        return [
          { job: 'beta', queries: broken },
          { job: 'alpha', queries: alpha, release: () => alpha.close() },
        ];
      },
    },
    { onReadError: (job) => errors.push(job), paceRatio: 0 },
  );
  const m = parseExposition(await exporter.metrics());
  expect(errors).toEqual(['beta']);
  expect(m.sum('gbatch_rows', { job_name: 'beta' })).toBe(0);
  expect(m.sum('gbatch_rows', { job_name: 'alpha' })).toBe(7);
});

test('a read that took long is reused by the scrapes that come before its pace has passed', async () => {
  const paths = await campaign();
  const jobs = source(paths);
  let now = 1_000;
  const slowJobs = {
    async jobs() {
      now += 500; // the read takes half a second
      return jobs.jobs();
    },
  };
  const exporter = journalMetrics(slowJobs, { paceRatio: 20, now: () => now });
  const first = await exporter.metrics();
  expect(jobs.counted.scrapes).toBe(1);
  now += 9_999; // 20 x 500 ms: the first read is still young
  expect(await exporter.metrics()).toBe(first);
  expect(jobs.counted.scrapes).toBe(1);
  now += 1;
  await exporter.metrics();
  expect(jobs.counted.scrapes).toBe(2);
});

test('a source that yields one job at a time has one journal open at a time', async () => {
  const paths = await campaign();
  let open = 0;
  let most = 0;
  const exporter = journalMetrics(
    {
      async *jobs() {
        for (const [job, path] of Object.entries(paths)) {
          const queries = await readOnly(path);
          most = Math.max(most, ++open);
          yield {
            job,
            queries,
            release: async () => {
              open--;
              await queries.close();
            },
          };
        }
      },
    },
    { paceRatio: 0 },
  );
  const m = parseExposition(await exporter.metrics());
  expect(most).toBe(1);
  expect(open).toBe(0);
  expect(new Set(m.samples.map((s) => s.labels.job_name))).toEqual(new Set(['alpha', 'beta']));
});
