// The gateway's 402 (balance out) seen by one runner stops submissions on every runner of the job: the
// others hear it through the journal and send nothing more, although the gateway answered only that one
// request with 402. Every runner then ends on exit 3 with the unsent rows deferred.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, onTestFinished, test } from 'vitest';
import { assertBuilt, describeEnd } from '../crash/helpers/gbatch-child.js';
import { chatRow, writeJsonl } from '../e2e/helpers/manifests.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../hostile/hostile-gateway.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { RunnerPool, runnerArgs } from './helpers/runners.js';

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
    const arrivals: number[] = [];
    let refusedAt = 0;
    const gw = await startHostileGateway({
      routes: {
        chat: async (req, res, gateway) => {
          arrivals.push(performance.now());
          if (arrivals.length === REFUSED_AT_POST) {
            refusedAt = performance.now();
            return sendJson(res, 402, errorEnvelope('insufficient balance', 'insufficient_quota'));
          }
          await new Promise((resolve) => setTimeout(resolve, 100)); // answers take a while: the runners keep sending meanwhile
          return DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(join(dir, 'balance.jsonl'), Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `balance row ${i}`)));
    const pool = new RunnerPool(runnerArgs(manifest, db.url(), join(dir, 'out'), ['--concurrency', '2']), { baseUrl: gw.baseUrl, apiKey: gw.key });
    pool.start(3);
    const ends = await pool.all();
    for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(3);
    expect(refusedAt).toBeGreaterThan(0);

    const late = arrivals.filter((t) => t > refusedAt + HEARING_MS);
    expect(late.length, `requests later than ${HEARING_MS} ms after the 402`).toBe(0);
    // The job was far from done when the 402 came: the quiet afterwards is the stop, not an empty queue.
    expect(arrivals.length).toBeLessThan(ROWS / 2);

    const client = new pg.Client({ connectionString: db.url() });
    await client.connect();
    try {
      const states = await client.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM items GROUP BY state');
      const byState = Object.fromEntries(states.rows.map((r) => [r.state, Number(r.n)]));
      // Every request answered 200 was stored; the refused one and every row never sent wait as deferred.
      expect(byState.downloaded).toBe(arrivals.length - 1);
      expect(byState.deferred).toBe(ROWS - arrivals.length + 1);
      expect(Object.keys(byState).sort()).toEqual(['deferred', 'downloaded']);
    } finally {
      await client.end();
    }
  }, 60_000);
});
