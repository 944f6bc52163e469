// Whole runs against the simulator: a job's later run (a resume) finds the forecast its first run kept and
// reports it as it stands, not one drawn again from the history the first run taught (SQLite, PostgreSQL); and
// runners starting together on a fresh PostgreSQL job keep one forecast between them, each reporting it. The
// race is held open: the runners' requests wait at the gateway and their reads of the history wait on a table
// lock until every runner has pinned its rows, so all of them have found no forecast kept and draw at once.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startForecastOf, type StartForecast } from '../../src/core/start-forecast.js';
import { openQueries, openStore } from '../../src/journal/index.js';
import type { RunEvents } from '../../src/pipeline/context.js';
import { chatRow, writeJsonl } from '../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../helpers/postgres.js';
import { runInProcess } from '../helpers/run.js';
import { startSim } from '../helpers/sim.js';
import { workspace, type Workspace } from '../helpers/workspace.js';

interface Told {
  forecast: StartForecast;
  made: boolean;
}

function listened(): { events: EventEmitter<RunEvents>; told: Told[] } {
  const events = new EventEmitter<RunEvents>();
  const told: Told[] = [];
  events.on('forecast', (forecast, made) => told.push({ forecast, made }));
  return { events, told };
}

function chats(ws: Workspace, job: string, count: number): string {
  return writeJsonl(
    ws.path(`${job}.jsonl`),
    Array.from({ length: count }, (_, i) => chatRow(`${job}-${i}`, `Question ${job} ${String(i).padStart(3, '0')}`)),
  );
}

/** The forecast the job's record keeps, and the cost history the journal holds. */
async function journalFacts(statePath: string, job: string) {
  const journal = await openQueries(statePath, { job });
  try {
    return {
      kept: startForecastOf((await journal.getJob())?.options),
      history: await journal.settledCosts(),
      pending: (await journal.counts()).pending,
    };
  } finally {
    await journal.close();
  }
}

async function resumeFindsKept(ws: Workspace, statePath: string, job: string): Promise<void> {
  const sim = await startSim();
  const manifest = chats(ws, job, 8);
  // The first run stops once a row is billed, leaving rows to send.
  const first = listened();
  const stop = new AbortController();
  first.events.on('transition', (item) => {
    if (item.state === 'succeeded') stop.abort();
  });
  await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    settings: { concurrency: 1 },
    extra: { jobName: job, statePath, events: first.events, interrupt: stop.signal },
  });
  const afterFirst = await journalFacts(statePath, job);
  expect(afterFirst.pending).toBeGreaterThan(0);
  expect(first.told).toEqual([{ forecast: afterFirst.kept, made: true }]);
  // Drawn before any row was billed: no history then. The first run taught the history rows of this model since.
  expect(afterFirst.kept!.total.basisRows).toBe(0);
  expect(afterFirst.history.filter((r) => r.model === 'chat-small').length).toBeGreaterThan(0);

  const second = listened();
  const resumed = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    extra: { jobName: job, statePath, events: second.events },
  });
  expect(resumed.exitCode).toBe(0);
  // The kept one, as it was made (its time too): not one drawn again from the history the first run taught.
  expect(second.told).toEqual([{ forecast: afterFirst.kept, made: false }]);
  const afterSecond = await journalFacts(statePath, job);
  expect(afterSecond.pending).toBe(0);
  expect(afterSecond.kept).toEqual(afterFirst.kept);
}

describe('a later run of the job finds the forecast its first run kept', () => {
  it('SQLite: a resume reports the kept forecast, unchanged', async () => {
    const ws = workspace();
    await resumeFindsKept(ws, ws.state, 'job');
  }, 60_000);

  describe.skipIf(!pgAvailable())('PostgreSQL', () => {
    const db = usePgSchema('gbatch_kept_forecast');
    it('a resume reports the kept forecast, unchanged', async () => {
      await resumeFindsKept(workspace(), db.url(), 'resumed');
    }, 60_000);

    it('three runners starting together on a fresh job keep one forecast, and each reports it', async () => {
      const ws = workspace();
      const runners = 3;
      let started = 0;
      let release!: () => void;
      const allStarted = new Promise<void>((resolve) => (release = resolve));
      // Every request waits at the gateway until each runner has pinned its rows (before its first send).
      const sim = await startSim({
        faults: { latencyMs: 1 },
        clock: { now: () => Date.now(), sleep: () => allStarted },
      });
      // And every runner's read of the history waits on a lock held until then: each has found no forecast kept
      // before any draws one, and all keep theirs at once.
      await (await openStore(db.url(), { job: 'raced' })).close();
      await db.query('BEGIN');
      await db.query('LOCK TABLE settled_costs IN ACCESS EXCLUSIVE MODE');
      const unlocked = allStarted.then(() => db.query('COMMIT'));
      let keptAtRelease: string | null | undefined;
      const keptNow = async () => {
        const { rows } = await db.query<{ options: string | null }>(`SELECT options FROM jobs WHERE name = 'raced'`);
        keptAtRelease = rows[0]?.options;
      };
      const manifest = chats(ws, 'raced', 40);
      const heard = Array.from({ length: runners }, () => listened());
      for (const { events } of heard)
        events.on('started', () => {
          if (++started === runners) void keptNow().then(release);
        });
      const results = await Promise.all(
        heard.map(({ events }) =>
          runInProcess({
            sim,
            ws,
            manifests: [manifest],
            settings: { concurrency: 4 },
            extra: { jobName: 'raced', statePath: db.url(), events },
          }),
        ),
      );
      await unlocked;
      // Every runner had pinned its rows with none kept (and saved the job): the race was on when let go.
      expect(keptAtRelease).not.toContain('startForecast');
      expect(keptAtRelease).toBeTruthy();
      expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0]);
      const { kept, pending } = await journalFacts(db.url(), 'raced');
      expect(pending).toBe(0);
      expect(heard.map((h) => h.told.map((t) => t.forecast))).toEqual([[kept], [kept], [kept]]);
      expect(heard.flatMap((h) => h.told).filter((t) => t.made)).toHaveLength(1);
    }, 60_000);
  });
});
