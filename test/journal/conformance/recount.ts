// What the journal's summaries must equal: the job's rows and event log read whole and added up here, the slow way
// (every row, every event), as `report` and `status` once did.
import { roundUsd } from '../../../src/core/money.js';
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import type { Item, JournalStore, ReportSums, SumRow } from '../../../src/journal/index.js';
import { eventLog } from '../../../src/journal/index.js';
import { buildTimeline, quantile } from '../../../src/report/timeline.js';
import { collect } from './harness.js';

function sumOf(items: readonly Item[]): SumRow {
  const none = items.length === 0;
  const settled = items.filter((i) => i.actualUsd !== null);
  const over = settled.filter((i) => i.actualUsd! > i.estimateUsd);
  const charged = items.filter((i) => i.gatewayChargeUsd !== null);
  const metered = items.filter((i) => i.totalTokens !== null);
  const add = (xs: readonly Item[], f: (i: Item) => number) => roundUsd(xs.reduce((n, i) => n + f(i), 0));
  return {
    items: items.length,
    settled: none ? null : settled.length,
    estimated: none ? null : add(items, (i) => i.estimateUsd),
    actual: settled.length ? add(settled, (i) => i.actualUsd!) : null,
    settled_estimated: settled.length ? add(settled, (i) => i.estimateUsd) : null,
    reserved: none ? null : add(items, (i) => i.reservedUsd + i.carriedUsd),
    over: over.length ? add(over, (i) => i.actualUsd! - i.estimateUsd) : null,
    gateway: charged.length ? add(charged, (i) => i.gatewayChargeUsd!) : null,
    gateway_n: charged.length,
    tokens: metered.length ? metered.reduce((n, i) => n + i.totalTokens!, 0) : null,
    unmetered: none ? null : items.filter((i) => i.unmetered).length,
  };
}

export interface Recount {
  counts: Record<ItemState, number>;
  sums: ReportSums;
  spend: { reservedUsd: number; actualUsd: number };
  facets: { models: Array<{ model: string; rows: number }>; errorCodes: Array<{ code: string; rows: number }> };
  activity: { firstAt: number | null; lastAt: number | null };
  video: { count: number; medianMs: number | null };
  /** Each row's last attempt's times (rows with none left out), by id. */
  times: Record<string, object>;
}

const timesOf = (entries: Iterable<[string, object]>): Record<string, object> =>
  Object.fromEntries([...entries].filter(([, t]) => Object.keys(t).length > 0).sort(([a], [b]) => (a < b ? -1 : 1)));

export async function recount(store: JournalStore): Promise<Recount> {
  const items = await collect(store.iterate());
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, items.filter((i) => i.state === s).length])) as Record<
    ItemState,
    number
  >;
  const groups = new Map<string, Item[]>();
  for (const item of items.filter((i) => i.state !== 'invalid')) {
    const key = JSON.stringify([item.model || null, item.resolution]);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const tally = (pick: (i: Item) => string | undefined) => {
    const n = new Map<string, number>();
    for (const item of items) {
      const key = pick(item);
      if (key) n.set(key, (n.get(key) ?? 0) + 1);
    }
    return [...n].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  };
  const timeline = await buildTimeline(eventLog(store));
  return {
    counts,
    sums: {
      total: sumOf(items),
      groups: [...groups]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, rows]) => {
          const [model, resolution] = JSON.parse(key) as [string, string | null];
          const { unmetered: _unmetered, ...sums } = sumOf(rows);
          return { model, resolution, ...sums };
        }),
    },
    spend: {
      reservedUsd: roundUsd(items.reduce((n, i) => n + i.reservedUsd + i.carriedUsd, 0)),
      actualUsd: roundUsd(items.reduce((n, i) => n + (i.actualUsd ?? 0), 0)),
    },
    facets: {
      models: tally((i) => i.model || undefined).map(([model, rows]) => ({ model, rows })),
      errorCodes: tally((i) => i.lastError?.code).map(([code, rows]) => ({ code, rows })),
    },
    activity: { firstAt: timeline.startedAt ?? null, lastAt: timeline.endedAt ?? null },
    video: {
      count: timeline.videoDurationsMs.length,
      medianMs: quantile(timeline.videoDurationsMs, 0.5) ?? null,
    },
    times: timesOf(timeline.items),
  };
}

/** The same figures as the journal's summaries give them. */
export async function summarised(store: JournalStore): Promise<Recount> {
  return {
    counts: await store.counts(),
    sums: await store.reportSums(),
    spend: await store.spend(),
    facets: await store.rowFacets(),
    activity: await store.activity(),
    video: await store.videoTaskTimes(),
    times: timesOf(await reportTimes(store)),
  };
}

/** The rows' times as a report reads them with its rows, a page at a time. */
async function reportTimes(store: JournalStore): Promise<Array<[string, object]>> {
  const times: Array<[string, object]> = [];
  for (let after = 0; ;) {
    const page = (await store.reportRows(after, 3)) ?? [];
    if (page.length === 0) return times;
    for (const row of page) times.push([row.id, row.times]);
    after = page[page.length - 1]!.seq;
  }
}
