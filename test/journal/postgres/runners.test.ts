// Many runners on one job, on the real server: disjoint claims, rows held by the runner that sent them,
// one budget however they race, leases that expire and sweeps that take over, and what they share
// (a 402, the account's pace and pause, the results file's rebuild).
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  LockLostError,
  StaleTransitionError,
  type Change,
  type JournalStore,
  openStore,
} from '../../../src/journal/index.js';
import { HELD_ROWS_LOOK_EVERY } from '../../../src/journal/postgres/membership.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row, thrown } from '../conformance/harness.js';

function submit(id: string, reservedUsd = 0.01): Change {
  return { id, event: 'submit', patch: { attempts: 1, reservedUsd }, expect: 'pending' };
}

describe.skipIf(!pgAvailable())('PostgreSQL journal: many runners on one job', () => {
  const db = usePgSchema('gbatch_runners');
  const opened: JournalStore[] = [];
  let jobCount = 0;
  const staleKnob = process.env.GBATCH_LOCK_STALE_MS;

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    if (staleKnob === undefined) delete process.env.GBATCH_LOCK_STALE_MS;
    else process.env.GBATCH_LOCK_STALE_MS = staleKnob;
  });

  async function open(job: string): Promise<JournalStore> {
    const store = await openStore(db.url(), { job });
    opened.push(store);
    return store;
  }

  /** A fresh job with `rows` pending rows and `runners` runners joined. */
  async function job(rows: number, runners: number): Promise<{ name: string; stores: JournalStore[] }> {
    const name = `runners-${++jobCount}`;
    const stores = await Promise.all(Array.from({ length: runners }, () => open(name)));
    await ingest(
      stores[0]!,
      Array.from({ length: rows }, (_, i) => row(`r${i}`, i + 1)),
    );
    await stores[0]!.saveJob({ name, manifest: 'm.jsonl', options: {} });
    for (const store of stores) await store.membership.acquire();
    return { name, stores };
  }

  it('runners join the same job side by side; status sees each, alive', async () => {
    const { stores } = await job(0, 3);
    const runners = await stores[0]!.membership.runners();
    expect(runners).toHaveLength(3);
    expect(runners.every((r) => r.liveness.alive && r.host === hostname() && r.pid === process.pid)).toBe(true);
  });

  it('claims are disjoint: two runners asking at once get different rows, in manifest order', async () => {
    const {
      stores: [a, b],
    } = await job(10, 2);
    const [mine, theirs] = await Promise.all([a!.claimPending(4, 0), b!.claimPending(4, 0)]);
    const ids = [...mine, ...theirs].map((i) => i.id);
    expect(new Set(ids).size).toBe(8);
    expect(mine.map((i) => i.seq)).toEqual([...mine.map((i) => i.seq)].sort((x, y) => x - y));
    // A runner asking again gets its own claims back, never the other's.
    expect((await a!.claimPending(10, 0)).map((i) => i.id)).toEqual(
      expect.not.arrayContaining(theirs.map((i) => i.id)),
    );
  });

  it('a row a runner holds is its own: neither another runner nor an operator can move it', async () => {
    const {
      name,
      stores: [a, b],
    } = await job(2, 2);
    await a!.applyTransitions([submit('r0')]);
    expect(await thrown(b!.applyTransitions([{ id: 'r0', event: 'lose', expect: 'submitting' }]))).toBeInstanceOf(
      StaleTransitionError,
    );
    // Planned on the row's head (no `expect`), refused all the same.
    expect(await thrown(b!.applyTransitions([{ id: 'r0', event: 'lose' }]))).toBeInstanceOf(StaleTransitionError);
    // A note lands whoever holds the row, and leaves it theirs.
    await b!.annotate('r0', { gatewayChargeUsd: 0.01 }, 'charge');
    expect(await thrown(b!.applyTransitions([{ id: 'r0', event: 'lose' }]))).toBeInstanceOf(StaleTransitionError);
    const operator = await open(name);
    expect(await thrown(operator.applyTransitions([{ id: 'r0', event: 'lose', expect: 'submitting' }]))).toBeInstanceOf(
      StaleTransitionError,
    );
    await a!.applyTransitions([{ id: 'r0', event: 'lose', expect: 'submitting' }]);
    expect((await b!.get('r0'))!.state).toBe('uncertain');
  });

  it('one budget for the job: runners racing to reserve never take settled + reserved past it', async () => {
    const { name, stores } = await job(30, 3);
    await stores[0]!.saveJob({ name, manifest: 'm.jsonl', options: {}, budgetUsd: 1 });
    const outcomes = await Promise.all(
      stores.map((store, k) =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.applyTransitions([submit(`r${k * 10 + i}`, 0.15)]).then(
              () => 'reserved',
              (err: unknown) => {
                if (err instanceof BudgetExceededError) return 'refused';
                throw err;
              },
            ),
          ),
        ),
      ),
    );
    const reserved = outcomes.flat().filter((o) => o === 'reserved').length;
    expect(reserved).toBe(6); // 6 x 0.15 = 0.90; a 7th would make 1.05
    expect((await stores[0]!.spend()).reservedUsd).toBeCloseTo(0.9, 9);
    // Settling below the reservation frees headroom for the next.
    const held = (await stores[0]!.list(['submitting'])).map((i) => i.id);
    for (const store of stores) {
      const mine: string[] = [];
      for await (const item of store.iterate({ states: ['submitting'], mine: true })) mine.push(item.id);
      if (mine.length > 0) {
        await store.applyTransitions([{ id: mine[0]!, event: 'complete', patch: { reservedUsd: 0, actualUsd: 0.05 } }]);
        break;
      }
    }
    expect(held).toHaveLength(6);
    const [next, after] = (await stores[0]!.list(['pending'], 2)).map((i) => i.id);
    await stores[0]!.applyTransitions([submit(next!, 0.15)]); // 0.75 + 0.05 + 0.15 = 0.95
    expect(await thrown(stores[1]!.applyTransitions([submit(after!, 0.15)]))).toBeInstanceOf(BudgetExceededError);
  });

  it("a runner whose lease expired is swept: its submitting rows become uncertain, its tasks the sweeper's; it writes nothing more", async () => {
    process.env.GBATCH_LOCK_STALE_MS = '400';
    const {
      stores: [frozen, other],
    } = await job(4, 2);
    await frozen!.applyTransitions([submit('r0'), submit('r1'), submit('r2')]);
    await frozen!.applyTransitions([{ id: 'r1', event: 'accept', patch: { taskId: 'task-1' } }]);
    const claimed = await frozen!.claimPending(1, 0);
    expect(claimed.map((i) => i.id)).toEqual(['r3']);
    // The other runner keeps beating; the frozen one does not, and its lease runs out on the database's clock.
    for (;;) {
      expect(await other!.membership.heartbeat()).toBe(true);
      if ((await other!.membership.runners()).some((r) => !r.liveness.alive)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const swept = await other!.membership.sweep();
    expect(swept.madeUncertain.map((i) => i.id).sort()).toEqual(['r0', 'r2']);
    expect(swept.adopted.map((i) => i.id)).toEqual(['r1']);
    expect(swept.released).toBe(1);
    expect(swept.runners).toBe(1); // the fleet left after the sweep: the sweeper alone
    expect((await other!.get('r0'))!.lastError?.message).toMatch(
      new RegExp(`runner pid ${process.pid} on .* stopped while attempt 1 may have been on the wire`),
    );
    expect((await other!.claimPending(5, 0)).map((i) => i.id)).toEqual(['r3']);
    let r1 = '';
    for await (const item of other!.iterate({ states: ['submitted'], mine: true })) r1 = item.id;
    expect(r1).toBe('r1');

    // The frozen runner comes back: its beat and every write fail; it is fenced.
    expect(await frozen!.membership.heartbeat()).toBe(false);
    expect(await thrown(frozen!.applyTransitions([{ id: 'r1', event: 'progress' }]))).toBeInstanceOf(LockLostError);
    expect(await thrown(frozen!.applyTransitions([submit('r3')]))).toBeInstanceOf(LockLostError);
    expect((await other!.get('r3'))!.state).toBe('pending');
    expect(await other!.membership.sweep()).toEqual({ madeUncertain: [], adopted: [], released: 0, runners: 1 });
  });

  it("a sweep that finds nothing to take over still tells the fleet's size (runners pace their looks by it)", async () => {
    const { stores } = await job(2, 3);
    expect(await stores[0]!.membership.sweep()).toEqual({ madeUncertain: [], adopted: [], released: 0, runners: 3 });
    await stores[2]!.membership.release();
    expect((await stores[0]!.membership.sweep()).runners).toBe(2);
  });

  it('a runner whose process on this host is gone is swept at once, lease or not', async () => {
    const {
      name,
      stores: [alive],
    } = await job(2, 1);
    await alive!.applyTransitions([submit('r0')]);
    await alive!.applyTransitions([{ id: 'r0', event: 'accept', patch: { taskId: 't0' } }]);
    // A dead process's runner row holding r0: plant it as a runner that died.
    await db.query(
      `INSERT INTO runners (job_id, runner_id, pid, host, process_start, started_at, heartbeat_at, lease_until)
      SELECT id, '00000000-0000-4000-8000-000000000001', 2147483646, $2, NULL, 0, 0, 9999999999999 FROM jobs WHERE name = $1`,
      [name, hostname()],
    );
    await db.query(`UPDATE items SET owner = '00000000-0000-4000-8000-000000000001' WHERE id = 'r0'`);
    const swept = await alive!.membership.sweep();
    expect(swept.adopted.map((i) => i.id)).toEqual(['r0']);
    expect(swept.runners).toBe(1);
    expect((await alive!.membership.runners()).find((r) => r.pid === 2147483646)!.liveness.alive).toBe(false);
  });

  it('leaving frees what a runner holds for the next (tasks left in flight), and its claims', async () => {
    const {
      name,
      stores: [a],
    } = await job(3, 1);
    await a!.applyTransitions([submit('r0')]);
    await a!.applyTransitions([{ id: 'r0', event: 'accept', patch: { taskId: 't0' } }]);
    await a!.claimPending(2, 0);
    await a!.membership.release();
    const next = await open(name);
    await next.membership.acquire();
    expect((await next.membership.sweep()).adopted.map((i) => i.id)).toEqual(['r0']);
    expect((await next.claimPending(5, 0)).map((i) => i.id)).toEqual(['r1', 'r2']);
  });

  it('a runner that leaves between two sweeps of another is seen at once: its tasks in flight are taken over', async () => {
    const {
      stores: [watcher, leaving],
    } = await job(2, 2);
    expect((await watcher!.membership.sweep()).adopted).toEqual([]);
    await leaving!.applyTransitions([submit('r0')]);
    await leaving!.applyTransitions([{ id: 'r0', event: 'accept', patch: { taskId: 't0' } }]);
    await leaving!.membership.release();
    expect((await watcher!.membership.sweep()).adopted.map((i) => i.id)).toEqual(['r0']);
  });

  it('while the runners stay the same, the rows in flight are read one sweep in HELD_ROWS_LOOK_EVERY', async () => {
    const {
      name,
      stores: [watcher],
    } = await job(2, 1);
    expect((await watcher!.membership.sweep()).adopted).toEqual([]);
    // A runner that comes and leaves between two sweeps leaves the runners as they were: its task waits for the
    // sweep that reads the rows again.
    const visitor = await open(name);
    await visitor.membership.acquire();
    await visitor.applyTransitions([submit('r1')]);
    await visitor.applyTransitions([{ id: 'r1', event: 'accept', patch: { taskId: 't1' } }]);
    await visitor.membership.release();
    expect((await watcher!.membership.sweep()).adopted).toEqual([]);
    for (let beat = 2; beat < HELD_ROWS_LOOK_EVERY; beat++)
      expect((await watcher!.membership.sweep()).adopted).toEqual([]);
    expect((await watcher!.membership.sweep()).adopted.map((i) => i.id)).toEqual(['r1']);
  });

  it("a 402 stops every runner that joined before it; the account's pace and pause are shared", async () => {
    const {
      name,
      stores: [a, b],
    } = await job(0, 2);
    expect(await b!.coordination.submissionsStopped()).toBeUndefined();
    await a!.coordination.stopSubmissions('balance');
    expect(await b!.coordination.submissionsStopped()).toBe('balance');
    const later = await open(name);
    await later.membership.acquire();
    expect(await later.coordination.submissionsStopped()).toBeUndefined();
    // Yet the job keeps that it was stopped at a 402 (`gbatch serve` sends no more of a batch live then).
    expect(await later.coordination.stoppedAtBalance()).toBe(true);

    const account = `acct-${name}`;
    // Each wait is counted from its own call: the slot is the moment it came back plus the wait.
    const slots = await Promise.all(
      [a!, b!, a!, b!].map(async (store) => {
        const wait = await store.coordination.takeSendSlot(account, 200);
        return performance.now() + wait;
      }),
    );
    const sorted = [...slots].sort((x, y) => x - y);
    // Four slots 200 ms apart, whoever took them (give or take the answers' own travel time).
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(170);
    expect(await b!.coordination.accountPause(account)).toBe(0);
    await a!.coordination.pauseAccount(account, 5000);
    expect(await b!.coordination.accountPause(account)).toBeGreaterThan(4000);
  });

  it('exclusive work (the results file) runs on one runner at a time', async () => {
    const {
      stores: [a, b],
    } = await job(0, 2);
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const aIn = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = a!.coordination.exclusive('results', async () => {
      order.push('a in');
      entered();
      await held;
      order.push('a out');
    });
    await aIn;
    const second = b!.coordination.exclusive('results', async () => {
      order.push('b in');
    });
    // b is queued on the server for the lock a holds: no event says so, the server's lock table does.
    const waiting = async (): Promise<number> =>
      (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = hashtext(current_schema() || ':gbatch:results')::oid`)
      ).rows[0]!.n;
    while ((await waiting()) === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(order).toEqual(['a in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a in', 'a out', 'b in']);
  });
});
