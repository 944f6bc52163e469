// The same operations on both adapters leave the same journal: every item, event, count, sum and
// results row equal (seq and row times aside, which are each adapter's own).
import { ManualClock } from '../../../src/core/clock.js';
import { describe, expect, it } from 'vitest';
import type { Change, JournalStore } from '../../../src/journal/index.js';
import { pgAvailable } from '../../helpers/postgres.js';
import { ingest, invalidRow, portable, row, type Harness } from './harness.js';
import { usePostgresHarness } from './postgres-harness.js';
import { useSqliteHarness } from './sqlite-harness.js';

/** A run in miniature: ingest, submit under reservations, settle at odd prices, poll, store, an operator's resolve. */
async function scenario(harness: Harness): Promise<unknown> {
  const clock = new ManualClock(1_700_000_000_000);
  const store: JournalStore = await harness.open({ clock });
  const rows = Array.from({ length: 40 }, (_, i) =>
    i % 5 === 4
      ? row(`v${i}`, i + 1, {
          kind: 'video',
          resolution: i % 10 === 4 ? '1080p' : '720p',
          estimateUsd: 0.37 + i / 1000,
        })
      : row(`c${i}`, i + 1, { model: i % 3 === 0 ? 'chat-large' : 'chat-small', estimateUsd: 0.0013 * (i + 1) }),
  );
  rows.push(invalidRow('broken', 41));
  const summary = await ingest(store, rows);
  const items = await store.list(['pending']);
  await store.applyTransitions(
    items.map((item) => ({ id: item.id, event: 'submit', patch: { attempts: 1, reservedUsd: item.estimateUsd } })),
    { durability: 'relaxed' },
  );
  clock.tick(10);
  const settle: Change[] = [];
  for (const [n, item] of items.entries()) {
    if (item.kind === 'video') {
      settle.push({ id: item.id, event: 'accept', patch: { taskId: `task-${n}` } });
      if (n % 3 === 0)
        settle.push({
          id: item.id,
          event: 'finish',
          patch: { reservedUsd: 0, actualUsd: item.estimateUsd * 1.1, finalResolution: item.resolution },
        });
    } else if (n % 7 === 6) {
      settle.push({ id: item.id, event: 'lose', patch: { lastError: { message: 'socket hang up' } } });
    } else {
      settle.push({
        id: item.id,
        event: 'complete',
        patch: {
          reservedUsd: 0,
          actualUsd: item.estimateUsd / 3,
          totalTokens: 17 * n,
          unmetered: n % 4 === 0,
          response: { text: `answer ${n}\n` },
          responseStatus: 200,
        },
      });
    }
  }
  await store.applyTransitions(settle);
  clock.tick(10);
  await store.annotate('v4', { gatewayChargeUsd: 0.123456789 }, 'charge');
  const answered = (await store.list(['succeeded'])).filter((i) => i.kind === 'chat').map((i) => i.id);
  await store.markStored(answered.slice(0, 10), 'results.jsonl', { flushed: true });
  await store.decideAndApply(async (reader) => {
    const lost = await reader.list(['uncertain']);
    return {
      changes: lost.map((i) => ({ id: i.id, event: 'resubmit' as const, expect: 'uncertain' as const })),
      result: lost.length,
    };
  });
  const all = [];
  for await (const item of store.iterate({}, 7)) all.push(portable(item));
  const events = await Promise.all(all.map((item) => store.events(item.id)));
  const results = (await store.resultRows(0, 1000, 1_000_000)).map(({ seq: _seq, ...rest }) => rest);
  return {
    summary,
    all,
    events,
    results,
    counts: await store.counts(),
    spend: await store.spend(),
    sums: await store.reportSums(),
    // A Map's order is not part of the answer.
    lastSubmit: [...(await store.lastSubmitTimes(all.map((i) => i.id)))].sort(([a], [b]) => a.localeCompare(b)),
    // Each row's last attempt's times, stamped by its moves (src/journal/item-times.ts) from the same clock.
    times: ((await store.reportRows(0, 1000)) ?? []).map((r) => ({ id: r.id, state: r.state, times: r.times })),
  };
}

describe.skipIf(!pgAvailable())('SQLite and PostgreSQL adapters', () => {
  const sqlite = useSqliteHarness();
  const postgres = usePostgresHarness();

  it('leave the same journal after the same operations: items, events, counts, spend, report sums, results, row times', async () => {
    const fromSqlite = await scenario(sqlite);
    const fromPostgres = await scenario(postgres);
    expect(fromPostgres).toEqual(fromSqlite);
    const times = (fromSqlite as { times: Array<{ state: string; times: Record<string, number> }> }).times;
    for (const state of ['downloaded', 'succeeded', 'submitted'])
      expect(
        times.some((r) => r.state === state && Object.keys(r.times).length > 0),
        state,
      ).toBe(true);
    expect((fromSqlite as { sums: { groups: unknown[] } }).sums.groups.length).toBeGreaterThan(2);
  });
});
