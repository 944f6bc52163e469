// A PostgreSQL journal out of reach for a moment: which failures are a lost connection, how long they are
// retried (on an injected clock), and a group commit whose connection dropped after it landed (its repeat,
// refused as stale, re-reads the rows and counts as landed) against the real server.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { GatewayTransportError } from '../../../src/gateway/errors.js';
import { openStore, StaleTransitionError, type Change, type JournalStore } from '../../../src/journal/index.js';
import {
  applyBatch,
  followedConnectionLoss,
  isConnectionLoss,
  postgresInternals,
  retryOutage,
} from '../../helpers/journal-raw.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row, thrown } from '../conformance/harness.js';

const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
const terminated = (): Error => coded('57P01', 'terminating connection due to administrator command');

describe('isConnectionLoss', () => {
  it.each<[string, unknown, boolean]>([
    ['a session ended by an administrator (57P01)', terminated(), true],
    ['the server starting up (57P03)', coded('57P03'), true],
    ['a connection exception (08006)', coded('08006'), true],
    ['the database dropped (3D000)', coded('3D000'), true],
    ['a refused connection', coded('ECONNREFUSED'), true],
    ['node-postgres: the socket closed under a query', new Error('Connection terminated unexpectedly'), true],
    ['wrapped as a cause', new Error('write failed', { cause: coded('ECONNRESET') }), true],
    ['a unique violation', coded('23505'), false],
    ['a stale transition (the journal refused it)', coded('GB001'), false],
    [
      "the gateway's refused connection",
      new GatewayTransportError('GBATCH_CONNECT', false, 'connect ECONNREFUSED', { cause: coded('ECONNREFUSED') }),
      false,
    ],
    ['a bug', new TypeError('x is undefined'), false],
  ])('%s: %s', (_name, err, expected) => {
    expect(isConnectionLoss(err)).toBe(expected);
  });
});

describe('retryOutage', () => {
  it('rides out a lost connection and returns what the attempt that got through returned', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const result = retryOutage(
      async () => {
        if (++calls < 3) throw terminated();
        return 'landed';
      },
      30_000,
      clock,
      () => 1,
    );
    await clock.waitForSleepers();
    await clock.advance(100);
    await clock.waitForSleepers();
    await clock.advance(200);
    expect(await result).toBe('landed');
    expect(calls).toBe(3);
  });

  it('gives up once the bound is spent, with the last error, marked as following a lost connection', async () => {
    const clock = new ManualClock();
    let calls = 0;
    let settled = false;
    const result = retryOutage(
      async () => {
        calls++;
        throw terminated();
      },
      1000,
      clock,
      () => 1,
    )
      .catch((err: unknown) => err)
      .finally(() => {
        settled = true;
      });
    while (!settled) {
      await Promise.race([clock.waitForSleepers(), result]);
      await clock.advance(2000);
    }
    const err = await result;
    expect(clock.now()).toBeGreaterThanOrEqual(1000);
    expect(isConnectionLoss(err)).toBe(true);
    expect(followedConnectionLoss(err)).toBe(true);
    expect(calls).toBeLessThan(10);
  });

  it('never retries anything else', async () => {
    let calls = 0;
    const err = await retryOutage(
      async () => {
        calls++;
        throw coded('23505');
      },
      30_000,
      new ManualClock(),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
    expect(followedConnectionLoss(err)).toBe(false);
  });
});

describe.skipIf(!pgAvailable())('a group commit through a lost connection (the real server)', () => {
  const db = usePgSchema('gbatch_loss');
  const opened: JournalStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  const submit = (id: string): Change => ({
    id,
    event: 'submit',
    expect: 'pending',
    patch: { attempts: 1, reservedUsd: 0.1 },
    detail: { attempt: 1 },
  });

  async function storeWithRows(name: string): Promise<{
    store: JournalStore;
    pool: { query: (...a: unknown[]) => Promise<unknown> };
    jobId: number;
    runnerId: string;
  }> {
    const store = await openStore(db.url(), { job: name });
    opened.push(store);
    await ingest(store, [row('r0', 1), row('r1', 2)]);
    await store.membership.acquire();
    return { store, ...postgresInternals(store) };
  }

  it('landed, then its answer lost: the repeat is refused as stale, the rows are where it took them, it counts as landed', async () => {
    const { store, pool, jobId, runnerId } = await storeWithRows('landed');
    let first = true;
    // The first statement commits on the server, then its connection drops before the answer is read.
    const dropsAfterCommit = {
      query: (...args: unknown[]) =>
        retryOutage(async () => {
          const result = await pool.query(...args);
          if (first) {
            first = false;
            throw terminated();
          }
          return result;
        }, 30_000),
    };
    const moves = await applyBatch(
      dropsAfterCommit as never,
      jobId,
      runnerId,
      [submit('r0'), submit('r1')],
      Date.now(),
      false,
    );
    expect(moves.map((m) => m.to)).toEqual(['submitting', 'submitting']);
    expect((await store.counts()).submitting).toBe(2);
    expect((await store.spend()).reservedUsd).toBeCloseTo(0.2, 9); // moved once, not twice
    expect((await store.events('r0')).filter((e) => e.event === 'submit')).toHaveLength(1);
  });

  it('a repeat refused because someone else moved a row elsewhere is still stale', async () => {
    const { store, pool, jobId, runnerId } = await storeWithRows('moved');
    let first = true;
    const dropsBeforeIt = {
      query: (...args: unknown[]) =>
        retryOutage(async () => {
          if (first) {
            first = false;
            await store.applyTransitions([submit('r1'), { id: 'r1', event: 'lose', expect: 'submitting' }]); // meanwhile: elsewhere
            throw terminated();
          }
          return pool.query(...args);
        }, 30_000),
    };
    const err = await thrown(
      applyBatch(dropsBeforeIt as never, jobId, runnerId, [submit('r0'), submit('r1')], Date.now(), false),
    );
    expect(err).toBeInstanceOf(StaleTransitionError);
    expect((await store.get('r0'))!.state).toBe('pending');
  });
});
