// The gateway's 402 (balance out) seen by one runner stops submissions on every runner of the job: the
// others hear it through the journal and send nothing more, although the gateway answered only that one
// request with 402. Every runner then ends on exit 3 with the unsent rows deferred.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { assertBuilt, describeEnd } from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { errorEnvelope } from '../../helpers/hostile-gateway.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { startOneRefusalGateway } from '../../helpers/one-refusal-gateway.js';
import { RunnerPool, runnerArgs } from '../../helpers/runners.js';

const ROWS = 120;
const REFUSED_AT_POST = 15;
/** What the other runners may still send after the 402: requests already on the wire, and a beat before they hear. */
const HEARING_MS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-balance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())("the gateway's 402 across three runners", () => {
  const db = usePgSchema('gbatch_multi_balance');

  test('one runner meets the 402: no runner sends after hearing it; all exit 3, the rest deferred', async () => {
    assertBuilt();
    const {
      gateway: gw,
      arrivals,
      refusedAt: refused,
    } = await startOneRefusalGateway(REFUSED_AT_POST, {
      status: 402,
      body: errorEnvelope('insufficient balance', 'insufficient_quota'),
    });
    const manifest = writeJsonl(
      join(dir, 'balance.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `balance row ${i}`)),
    );
    const pool = new RunnerPool(runnerArgs(manifest, db.url(), join(dir, 'out'), ['--concurrency', '2']), {
      baseUrl: gw.baseUrl,
      apiKey: gw.key,
    });
    pool.start(3);
    const ends = await pool.all();
    for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(3);
    const refusedAt = refused();
    expect(refusedAt).toBeGreaterThan(0);

    const late = arrivals.filter((t) => t > refusedAt + HEARING_MS);
    expect(late.length, `requests later than ${HEARING_MS} ms after the 402`).toBe(0);
    // The job was far from done when the 402 came: the quiet afterwards is the stop, not an empty queue.
    expect(arrivals.length).toBeLessThan(ROWS / 2);

    const states = await db.query<{ state: string; n: string }>(
      'SELECT state, count(*) AS n FROM items GROUP BY state',
    );
    const byState = Object.fromEntries(states.rows.map((r) => [r.state, Number(r.n)]));
    // Every request answered 200 was stored; the refused one and every row never sent wait as deferred.
    expect(byState.downloaded).toBe(arrivals.length - 1);
    expect(byState.deferred).toBe(ROWS - arrivals.length + 1);
    expect(Object.keys(byState).sort()).toEqual(['deferred', 'downloaded']);
  }, 60_000);
});
