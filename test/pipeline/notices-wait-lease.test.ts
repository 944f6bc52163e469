// A PostgreSQL runner that starts while the job's notices lock is held (runners starting together queue on it,
// one at a time) keeps renewing its lease as it waits: otherwise one queued there past a lease is swept as gone
// while alive, and stops with its rows taken over. The runner's sessions carry a lock_timeout: on a runner that
// does not beat while it waits, the timeout ends the wait (logged) before any renewal, and the test fails then.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/journal/index.js';
import type { RunEvents } from '../../src/pipeline/context.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { runInProcess } from '../helpers/run.js';
import { startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';

const JOB = 'queued-start';
const LOCK_TIMEOUT_MS = 10_000;

describe.skipIf(!pgAvailable())('PostgreSQL: a runner waiting for the job notices lock at its start', () => {
  const db = usePgSchema('gbatch_notices_wait');

  it('renews its lease while it waits, then runs the job', async () => {
    const url = `${PG_TEST_URL}?options=${encodeURIComponent(`-c search_path=${db.schema} -c lock_timeout=${LOCK_TIMEOUT_MS}`)}`;
    await (await openStore(url, { job: JOB })).close();
    const { rows } = await db.query<{ id: number }>('SELECT id FROM jobs WHERE name = $1', [JOB]);
    await db.query('BEGIN');
    await db.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':gbatch:notices'), $1::int)`, [
      rows[0]!.id,
    ]);

    const events = new EventEmitter<RunEvents>();
    let renewed = 0;
    const whileHeld = new Promise<void>((resolve, reject) => {
      events.on('lease', (lease) => {
        if (lease === 'renewed' && ++renewed === 2) resolve();
      });
      events.on('log', (line) => {
        if (line.includes("could not open the job's notifications"))
          reject(new Error(`the wait for the notices lock ended before two renewals: ${line}`));
      });
    });
    const ws = workspace();
    const manifest = writeJsonl(
      ws.path(`${JOB}.jsonl`),
      Array.from({ length: 3 }, (_, i) => chatRow(`${JOB}-${i}`, `Question ${i}`)),
    );
    const run = runInProcess({
      sim: await startSim(),
      ws,
      manifests: [manifest],
      settings: { concurrency: 2 },
      extra: { jobName: JOB, statePath: url, events },
    });
    try {
      await whileHeld;
    } finally {
      await db.query('COMMIT');
    }
    expect((await run).exitCode).toBe(0);
  }, 60_000);
});
