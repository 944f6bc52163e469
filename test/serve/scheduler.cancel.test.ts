// A client's cancel while a batch is validated, while its first run reads its input into the job, and while
// it is finalizing, on SQLite and on PostgreSQL: the scheduler in this process, its catalog held at the
// instants the test picks. A cancel answered `cancelling` sends nothing after the answer (the simulator's
// ledger), every request never sent ends cancelled, and the batch `cancelled`; a batch already finalizing
// turns the cancel down rather than answering it with a status it no longer has.
import { folderFiles } from '../../src/serve/file-store.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { openServeCatalog, openStore, type CatalogBatch, type ServeCatalog } from '../../src/journal/index.js';
import { batchOf } from '../../src/serve/batch-record.js';
import { BatchesApi } from '../../src/serve/batches-api.js';
import type { ServeContext } from '../../src/serve/context.js';
import { jobJournal } from '../../src/serve/context.js';
import { BatchScheduler } from '../../src/serve/scheduler.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { chatLine } from '../helpers/serve.js';
import { KEY, posts, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import type { Simulator } from '../../src/sim/index.js';

const pg = usePgSchema('gbatch_serve_cancel_points');
const OWNER = 'owner-cancel-points';

interface Hold {
  /** Resolves once a matching call is held. */
  reached: Promise<void>;
  release(): void;
}

/** The catalog, with one-shot holds on its calls: before a matching call runs, or after it answered. */
function holdingCatalog(catalog: ServeCatalog): {
  catalog: ServeCatalog;
  hold(method: keyof ServeCatalog, when: 'before' | 'after', matches: (row: CatalogBatch) => boolean): Hold;
} {
  const holds: Array<{
    method: string;
    when: 'before' | 'after';
    matches: (row: CatalogBatch) => boolean;
    reached: () => void;
    released: Promise<void>;
  }> = [];
  const take = (method: string, when: 'before' | 'after', row: unknown): Promise<void> | undefined => {
    const found = holds.find(
      (h) => h.method === method && h.when === when && row !== undefined && h.matches(row as CatalogBatch),
    );
    if (!found) return undefined;
    holds.splice(holds.indexOf(found), 1);
    found.reached();
    return found.released;
  };
  const proxy = new Proxy(catalog, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await take(String(name), 'before', args[0]);
        const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
        await take(String(name), 'after', name === 'batch' ? result : result === true ? args[0] : undefined);
        return result;
      };
    },
  });
  return {
    catalog: proxy,
    hold(method, when, matches) {
      let reached!: () => void;
      let release!: () => void;
      const hold: Hold = {
        reached: new Promise((resolve) => (reached = resolve)),
        release: () => release(),
      };
      holds.push({ method, when, matches, reached, released: new Promise((resolve) => (release = resolve)) });
      return hold;
    },
  };
}

interface Scene {
  sim: Simulator;
  api: BatchesApi;
  scheduler: BatchScheduler;
  ctx: ServeContext;
  hold: ReturnType<typeof holdingCatalog>['hold'];
  /** The next scheduler log line matching `pattern`. */
  logged(pattern: RegExp): Promise<string>;
  create(rows: number): Promise<string>;
}

async function scene(adapter: 'sqlite' | 'postgres'): Promise<Scene> {
  const sim = await startSim();
  const ws = workspace('gbatch-serve-cancel-');
  const dataDir = ws.path('data');
  mkdirSync(join(dataDir, 'files'), { recursive: true });
  mkdirSync(join(dataDir, 'journals'), { recursive: true });
  const journal = adapter === 'postgres' ? pg.url() : join(dataDir, 'serve.db');
  const opened = await openServeCatalog(journal);
  onTestFinished(() => opened.close());
  const { catalog, hold } = holdingCatalog(opened);
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const ctx: ServeContext = {
    catalog,
    files: folderFiles(dataDir),
    dataDir,
    journal,
    pricing: BUILTIN_PRICING,
    pricingFile: undefined,
    concurrency: 2,
    pollIntervalS: 0.05,
    rpm: undefined,
    budgetUsd: undefined,
    maxFileBytes: 1 << 30,
    access: { baseUrl: sim.baseUrl, apiKey: KEY },
    env: {},
    log(line) {
      for (const waiter of [...waiters])
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
    },
    now: () => Date.now(),
  };
  const scheduler = new BatchScheduler(ctx);
  onTestFinished(() => scheduler.close());
  const api = new BatchesApi(ctx, scheduler);
  return {
    sim,
    api,
    scheduler,
    ctx,
    hold,
    logged: (pattern) => new Promise((resolve) => waiters.push({ pattern, resolve })),
    async create(rows) {
      const id = `file-${randomBytes(6).toString('hex')}`;
      const path = join(dataDir, 'files', `${id}.jsonl`);
      const text = Array.from({ length: rows }, (_, i) => JSON.stringify(chatLine(`r${i}`, `point ${id} ${i}`)));
      writeFileSync(path, text.join('\n') + '\n');
      await opened.addFile({
        id,
        owner: OWNER,
        createdAt: Math.floor(Date.now() / 1000),
        record: { path, filename: 'in.jsonl', bytes: text.join('\n').length + 1, purpose: 'batch' },
      });
      const batch = await api.create(OWNER, {
        input_file_id: id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      return batch.id as string;
    },
  };
}

/** The job's rows by state (those with any). */
async function jobStates(s: Scene, batchId: string): Promise<Record<string, number>> {
  const journal = await openStore(jobJournal(s.ctx, batchId), { job: batchId });
  try {
    return Object.fromEntries(Object.entries(await journal.counts()).filter(([, n]) => n > 0));
  } finally {
    await journal.close();
  }
}

const adapters = [
  { adapter: 'sqlite' as const, skip: false },
  { adapter: 'postgres' as const, skip: !pgAvailable() },
];

describe('gbatch serve: a cancel at each point of a batch', () => {
  for (const { adapter, skip } of adapters) {
    describe.skipIf(skip)(adapter, () => {
      it('validating: a cancel while the input is checked ends the batch cancelled, nothing sent', async () => {
        const s = await scene(adapter);
        const checked = s.hold('updateBatch', 'before', (row) => row.status === 'in_progress');
        const id = await s.create(40);
        await checked.reached;
        const answer = await s.api.cancel(OWNER, id);
        expect(answer.status).toBe('cancelling');
        const ended = s.logged(new RegExp(`${id}: (completed|cancelled|expired):`));
        checked.release();
        expect(await ended).toBe(`${id}: cancelled: 0 request(s) in the output file, 40 in the error file`);
        expect(posts(s.sim.ledger)).toBe(0);
        expect(await jobStates(s, id)).toEqual({ cancelled: 40 });
        const final = batchOf((await s.ctx.catalog.batch(id))!);
        expect(final.status).toBe('cancelled');
        expect(final.fields.request_counts).toEqual({ total: 40, completed: 0, failed: 40 });
      }, 60_000);

      it('loading: a cancel once the first run read the batch as live, before its rows are in, sends nothing', async () => {
        const s = await scene(adapter);
        // The first read of the batch in progress is its first run's, at its gate: the run goes on to read
        // the input into the job while the client's cancel is answered.
        const gate = s.hold('batch', 'after', (row) => row.status === 'in_progress');
        const id = await s.create(200);
        await gate.reached;
        const answer = await s.api.cancel(OWNER, id);
        expect(answer.status).toBe('cancelling');
        const sentAtAnswer = posts(s.sim.ledger);
        const ended = s.logged(new RegExp(`${id}: (completed|cancelled|expired):`));
        gate.release();
        expect(await ended).toBe(`${id}: cancelled: 0 request(s) in the output file, 200 in the error file`);
        expect(sentAtAnswer).toBe(0);
        expect(posts(s.sim.ledger)).toBe(0);
        expect(await jobStates(s, id)).toEqual({ cancelled: 200 });
        const final = batchOf((await s.ctx.catalog.batch(id))!);
        expect(final.status).toBe('cancelled');
        expect(final.fields.request_counts).toEqual({ total: 200, completed: 0, failed: 200 });
      }, 60_000);

      it('finalizing: a cancel that meets the batch finalizing is turned down, and the batch completes', async () => {
        const s = await scene(adapter);
        const finalizing = s.hold('updateBatch', 'after', (row) => row.status === 'finalizing');
        const id = await s.create(4);
        await finalizing.reached;
        // Read by the client a moment before (in progress), and once the batch is finalizing: neither cancels.
        const stale = { ...batchOf((await s.ctx.catalog.batch(id))!), status: 'in_progress' as const };
        expect((await s.scheduler.cancel(stale)).status).toBe('finalizing');
        await expect(s.api.cancel(OWNER, id)).rejects.toMatchObject({
          failure: { status: 400, body: { error: { message: "Cannot cancel a batch with status 'finalizing'." } } },
        });
        const ended = s.logged(new RegExp(`${id}: completed: 4 request\\(s\\) in the output file`));
        finalizing.release();
        await ended;
        expect(posts(s.sim.ledger)).toBe(4);
        expect(await jobStates(s, id)).toEqual({ downloaded: 4 });
        expect(batchOf((await s.ctx.catalog.batch(id))!).status).toBe('completed');
      }, 60_000);
    });
  }
});
