// The journal's election of the runner that sends each of a job's notifications, on the real server:
// a notice is won by exactly one runner however many ask at once; of runners ending, only the last one
// still at work speaks for the job's end, and its end opens a new session.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type JournalStore } from '../../../src/journal/index.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: job notices among runners', () => {
  const db = usePgSchema('gbatch_notices');
  const opened: JournalStore[] = [];
  let jobCount = 0;

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  async function runners(count: number): Promise<JournalStore[]> {
    const name = `notices-${++jobCount}`;
    const stores: JournalStore[] = [];
    for (let i = 0; i < count; i++) {
      const store = await openStore(db.url(), { job: name });
      opened.push(store);
      stores.push(store);
    }
    await stores[0]!.saveJob({ name, manifest: 'm.jsonl', options: {} });
    for (const store of stores) {
      await store.membership.acquire();
      await store.notices.begin();
    }
    return stores;
  }

  it('a notice claimed by three runners at once is won by exactly one, once per session', async () => {
    const stores = await runners(3);
    const won = await Promise.all(stores.map((s) => s.notices.claim('budget-threshold:80')));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await stores[0]!.notices.claim('budget-threshold:80')).toBe(false);
    expect(await stores[1]!.notices.claim('budget-threshold:50')).toBe(true);
  });

  it('of three runners ending at once exactly one is the last; its end clears the session for the next night', async () => {
    const stores = await runners(3);
    expect(await stores[0]!.notices.claim('budget-threshold:80')).toBe(true);
    const last = await Promise.all(stores.map((s) => s.notices.end()));
    expect(last.filter(Boolean)).toHaveLength(1);
    for (const store of stores) await store.membership.release();

    // The next night's runner starts a new session: the threshold may be announced again.
    const [next] = stores;
    await next!.membership.acquire();
    await next!.notices.begin();
    expect(await next!.notices.claim('budget-threshold:80')).toBe(true);
    expect(await next!.notices.end()).toBe(true);
  });

  it("a runner that ends while another is still at work leaves the job's end to it", async () => {
    const [early, late] = await runners(2);
    expect(await early!.notices.end()).toBe(false);
    await early!.membership.release();
    expect(await late!.notices.end()).toBe(true);
  });

  it('a runner joining others at work does not queue on the notices lock; one alone still clears the session', async () => {
    const [first] = await runners(1);
    expect(await first!.notices.claim('budget-threshold:80')).toBe(true);
    const jobName = `notices-${jobCount}`;
    const { rows } = await db.query<{ id: number }>('SELECT id FROM jobs WHERE name = $1', [jobName]);
    // Its sessions give up on a lock after 5 s: a join that queued on the lock held below fails, not hangs.
    const options = `-c search_path=${db.schema} -c lock_timeout=5000`;
    const joining = await openStore(`${PG_TEST_URL}?options=${encodeURIComponent(options)}`, { job: jobName });
    opened.push(joining);
    await joining.membership.acquire();
    // Another session holds the job's notices lock for as long as the join takes.
    await db.query('BEGIN');
    try {
      await db.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':gbatch:notices'), $1::int)`, [
        rows[0]!.id,
      ]);
      await joining.notices.begin();
    } finally {
      await db.query('COMMIT');
    }
    expect(await joining.notices.claim('budget-threshold:80')).toBe(false);

    expect(await first!.notices.end()).toBe(false);
    await first!.membership.release();
    expect(await joining.notices.end()).toBe(true);
    await joining.membership.release();
    await joining.membership.acquire();
    await joining.notices.begin();
    expect(await joining.notices.claim('budget-threshold:80')).toBe(true);
  });
});
