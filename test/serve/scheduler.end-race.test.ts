// Two servers on one PostgreSQL journal, one ending a batch while the other takes it up: a run that joins
// the batch's job after the batch is final changes no row and sends nothing (a run puts deferred rows back
// to pending when it starts), and the end waits for a run that joined before it. The first server is the
// built CLI; the second is the scheduler in this process, its catalog read at the instants the test picks.
import { folderFiles } from '../../src/serve/file-store.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import {
  openServeCatalog,
  openStore,
  type CatalogBatch,
  type JournalStore,
  type ServeCatalog,
} from '../../src/journal/index.js';
import { batchOf, rowOf } from '../../src/serve/batch-record.js';
import type { ServeContext } from '../../src/serve/context.js';
import { BatchScheduler } from '../../src/serve/scheduler.js';
import { BUILT } from '../helpers/cli.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { batchEnd, chatLine, client, startServe, submitBatch } from '../helpers/serve.js';
import { KEY, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';

const pg = usePgSchema('gbatch_serve_end_race');

/** The scheduler's log, with a wait for the first line (from now on) that matches. */
function logWatch(): { log(line: string): void; next(pattern: RegExp): Promise<string>; lines: string[] } {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  return {
    lines,
    log(line) {
      lines.push(line);
      for (const waiter of [...waiters])
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
    },
    next: (pattern) => new Promise((resolve) => waiters.push({ pattern, resolve })),
  };
}

function serverContext(
  catalog: ServeCatalog,
  dataDir: string,
  gateway: string,
  log: (line: string) => void,
): ServeContext {
  return {
    catalog,
    files: folderFiles(dataDir),
    dataDir,
    journal: pg.url(),
    pricing: BUILTIN_PRICING,
    pricingFile: undefined,
    concurrency: 2,
    pollIntervalS: 0.05,
    rpm: undefined,
    budgetUsd: undefined,
    maxFileBytes: 1 << 30,
    access: { baseUrl: gateway, apiKey: KEY },
    env: {},
    log,
    now: () => Date.now(),
  };
}

/** A batch of `rows` chat requests that the CLI's server ran to its end against `gateway`. */
async function endedBatch(gateway: string, data: string, input: string, rows: number): Promise<CatalogBatch> {
  const server = await startServe({ data, gateway, args: ['--journal', pg.url(), '--concurrency', '1'] });
  const lines = Array.from({ length: rows }, (_, i) => chatLine(`r${i}`, `race r${i}`));
  const created = await submitBatch(client(server), input, lines);
  expect(await batchEnd(server, created.id)).toBe('completed');
  await server.stop();
  const catalog = await openServeCatalog(pg.url());
  try {
    return (await catalog.batch(created.id))!;
  } finally {
    await catalog.close();
  }
}

/** The catalog (closed when the test ends), with the ended batch put back in progress as before its end. */
async function backInProgress(ended: CatalogBatch): Promise<ServeCatalog> {
  const catalog = await openServeCatalog(pg.url());
  onTestFinished(() => catalog.close());
  const batch = batchOf(ended);
  const { fields } = batch;
  await catalog.updateBatch(
    rowOf({
      ...batch,
      status: 'in_progress',
      fields: { ...fields, finalizing_at: null, completed_at: null, output_file_id: null, error_file_id: null },
    }),
  );
  return catalog;
}

/** What `read` finds in the batch's job journal, opened for it and closed after. */
async function readJob<T>(batchId: string, read: (journal: JournalStore) => Promise<T>): Promise<T> {
  const journal = await openStore(pg.url(), { job: batchId });
  try {
    return await read(journal);
  } finally {
    await journal.close();
  }
}

const jobCounts = (batchId: string): Promise<Record<string, number>> =>
  readJob(batchId, async (journal) =>
    Object.fromEntries(Object.entries(await journal.counts()).filter(([, n]) => n > 0)),
  );

const lastRunId = (batchId: string): Promise<number | undefined> =>
  readJob(batchId, async (journal) => (await journal.lastRun())?.id);

describe.skipIf(!BUILT || !pgAvailable())('gbatch serve: a batch ended while another server takes it up', () => {
  it('a run that joins after the batch ended leaves its rows as they are and sends nothing', async () => {
    // The gateway's balance is empty: the first request gets a 402, every row ends deferred (budget_exceeded).
    const broke = await startSim({ accounts: [{ key: KEY, balanceUsd: 0 }] });
    const ws = workspace('gbatch-serve-race-');
    const ended = await endedBatch(broke.baseUrl, ws.path('data'), ws.path('in.jsonl'), 6);
    expect(await jobCounts(ended.id)).toEqual({ deferred: 6 });

    // The second server read the batch while it was still in progress, and starts its run after the end;
    // its gateway has money, so a run that put the rows back to pending would send them.
    const rich = await startSim();
    const catalog = await openServeCatalog(pg.url());
    onTestFinished(() => catalog.close());
    let stale = true;
    const staleOnce = new Proxy(catalog, {
      get(target, name, receiver) {
        if (name !== 'batch') return Reflect.get(target, name, receiver) as unknown;
        return async (id: string) => {
          const row = await target.batch(id);
          if (!stale || !row) return row;
          stale = false;
          return { ...row, status: 'in_progress' };
        };
      },
    });
    const watch = logWatch();
    const scheduler = new BatchScheduler(serverContext(staleOnce, ws.path('data'), rich.baseUrl, watch.log));
    onTestFinished(() => scheduler.close());
    const refused = watch.next(new RegExp(`${ended.id}: the run did not start: the batch is completed`));
    scheduler.start(ended.id);
    await refused;
    await scheduler.close();

    expect(stale).toBe(false);
    expect(rich.ledger.requests).toEqual([]);
    expect(await jobCounts(ended.id)).toEqual({ deferred: 6 });
    expect((await catalog.batch(ended.id))!.status).toBe('completed');
  }, 60_000);

  it('a batch that was live at a 402 sends no more when another server (or a restart) runs it again', async () => {
    // Every row ended deferred at the first server's 402; the batch is taken up again while still in progress
    // (another server waiting for that run to end, or a restart before the end was written).
    const broke = await startSim({ accounts: [{ key: KEY, balanceUsd: 0 }] });
    const ws = workspace('gbatch-serve-race-');
    const ended = await endedBatch(broke.baseUrl, ws.path('data'), ws.path('in.jsonl'), 6);
    const catalog = await backInProgress(ended);

    // This server never saw the 402, and its gateway has money: a run that resent the rows would bill them.
    const rich = await startSim();
    const watch = logWatch();
    const scheduler = new BatchScheduler(serverContext(catalog, ws.path('data'), rich.baseUrl, watch.log));
    onTestFinished(() => scheduler.close());
    const completed = watch.next(
      new RegExp(`${ended.id}: completed: 0 request\\(s\\) in the output file, 6 in the error file`),
    );
    scheduler.start(ended.id);
    await completed;
    expect(rich.ledger.requests).toEqual([]);
    expect(await jobCounts(ended.id)).toEqual({ deferred: 6 });
  }, 60_000);

  it("waits to end a batch while another server's run of it is on, and ends it once that run is gone", async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-race-');
    const ended = await endedBatch(sim.baseUrl, ws.path('data'), ws.path('in.jsonl'), 4);
    // The batch is in progress again, its rows all answered, and a runner of another server is in its job.
    const catalog = await backInProgress(ended);
    const other = await openStore(pg.url(), { job: ended.id });
    onTestFinished(() => other.close());
    await other.membership.acquire();

    // Each attempt to end the batch that finds the other run on puts the batch back in progress.
    const reopenWaiters: Array<() => void> = [];
    const counted = new Proxy(catalog, {
      get(target, name, receiver) {
        if (name !== 'updateBatch') return Reflect.get(target, name, receiver) as unknown;
        return async (batch: CatalogBatch, from?: readonly string[]) => {
          const updated = await target.updateBatch(batch, from);
          if (updated && batch.status === 'in_progress') reopenWaiters.splice(0).forEach((resolve) => resolve());
          return updated;
        };
      },
    });
    const nextReopen = () => new Promise<void>((resolve) => reopenWaiters.push(resolve));
    const watch = logWatch();
    const scheduler = new BatchScheduler(serverContext(counted, ws.path('data'), sim.baseUrl, watch.log));
    onTestFinished(() => scheduler.close());
    const waits = `${ended.id}: another run of the batch is on: its end waits for it`;
    const waiting = watch.next(new RegExp(waits));
    scheduler.start(ended.id);
    await waiting;
    expect((await catalog.batch(ended.id))!.status).toBe('in_progress');
    // It only waits: no run of its own starts before its next attempts, and it says so once.
    const runBefore = await lastRunId(ended.id);
    await nextReopen();
    await nextReopen();
    expect(await lastRunId(ended.id)).toBe(runBefore);
    expect(watch.lines.filter((line) => line === waits)).toHaveLength(1);
    expect(watch.lines.filter((line) => line.includes('completed:'))).toEqual([]);

    const completed = watch.next(new RegExp(`${ended.id}: completed: 4 request\\(s\\) in the output file`));
    await other.membership.release();
    await completed;
    const final = batchOf((await catalog.batch(ended.id))!);
    expect(final.status).toBe('completed');
    expect(final.fields.request_counts).toEqual({ total: 4, completed: 4, failed: 0 });
    expect(sim.ledger.requests.filter((r) => r.method === 'POST')).toHaveLength(4);
  }, 60_000);
});
