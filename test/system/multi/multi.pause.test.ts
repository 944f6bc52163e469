// A 429's Retry-After pauses the account on every runner of the job, not only the one that got it: the
// gateway sees no request from any runner while the pause lasts (after the half second the others take
// to hear of it through the journal).
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

const ROWS = 90;
const PAUSED_AT_POST = 15;
const RETRY_AFTER_S = 3;
/** What the other runners may still send: requests already in flight, and up to a beat before they hear. */
const HEARING_MS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-pause-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('a 429 across three runners', () => {
  const db = usePgSchema('gbatch_multi_pause');

  test(`Retry-After ${RETRY_AFTER_S} s on one runner's request holds every runner's requests`, async () => {
    assertBuilt();
    const {
      gateway: gw,
      arrivals,
      refusedAt: paused,
    } = await startOneRefusalGateway(PAUSED_AT_POST, {
      status: 429,
      body: errorEnvelope('slow down', 'rate_limit_error'),
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    });
    const manifest = writeJsonl(
      join(dir, 'pause.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `pause row ${i}`)),
    );
    const pool = new RunnerPool(runnerArgs(manifest, db.url(), join(dir, 'out'), ['--concurrency', '2']), {
      baseUrl: gw.baseUrl,
      apiKey: gw.key,
    });
    pool.start(3);
    const ends = await pool.all();
    for (const end of ends) expect(end.code, describeEnd('a runner', end)).toBe(0);
    const pausedAt = paused();
    expect(pausedAt).toBeGreaterThan(0);
    const during = arrivals.filter((t) => t > pausedAt + HEARING_MS && t < pausedAt + RETRY_AFTER_S * 1000 - 100);
    expect(during.length, `requests between ${HEARING_MS} ms after the 429 and the end of its pause`).toBe(0);
    // The runners were sending before the 429 and after the pause: the quiet is the pause, not an idle job.
    expect(arrivals.filter((t) => t > pausedAt + RETRY_AFTER_S * 1000).length).toBeGreaterThan(10);
    expect(arrivals).toHaveLength(ROWS + 1);
  }, 60_000);
});
