// The runs table: each run's start and end, the last one read back for `status`.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lastRunLines, lastRunView } from '../../../src/cli/last-run.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';
import { openSyncJournal, rawDb, lastRun, recordRunEnd, recordRunStart } from '../../helpers/journal-raw.js';

const tmp = useTempDir();

describe('runs', () => {
  it('records a start, then its end; the last run is the latest', async () => {
    let now = 1_000;
    const journal = openSyncJournal(`${tmp.dir()}/job.db`, { clock: { now: () => now } });
    try {
      expect(lastRun(journal)).toBeUndefined();
      const first = recordRunStart(journal);
      now = 2_000;
      recordRunEnd(journal, first, { exitCode: 0 });
      now = 3_000;
      const second = recordRunStart(journal);
      expect(lastRun(journal)).toEqual({
        id: second,
        pid: process.pid,
        host: hostname(),
        startedAt: 3_000,
        endedAt: null,
        exitCode: null,
        stopReason: null,
        message: null,
      });
      now = 4_500;
      recordRunEnd(journal, second, {
        exitCode: 75,
        stopReason: 'unreachable',
        message: 'gateway unreachable at X: connect ECONNREFUSED',
      });
      expect(lastRun(journal)).toMatchObject({
        id: second,
        startedAt: 3_000,
        endedAt: 4_500,
        exitCode: 75,
        stopReason: 'unreachable',
      });
      expect(second).toBeGreaterThan(first);
    } finally {
      journal.close();
    }
  });

  it('a journal from before the runs table has no last run (read-only, as status opens it)', async () => {
    const file = `${tmp.dir()}/old.db`;
    const journal = openSyncJournal(file);
    rawDb(journal).exec('DROP TABLE runs');
    journal.close();
    const readonly = openSyncJournal(file, { readonly: true });
    try {
      expect(lastRun(readonly)).toBeUndefined();
      expect(await lastRunView(readonly.store, [])).toBeNull();
    } finally {
      readonly.close();
    }
  });

  it('status: a stop that needs an operator is listed; a clean finish is not; a run that never ended was killed', async () => {
    const journal = openSyncJournal(`${tmp.dir()}/job.db`);
    try {
      const done = recordRunStart(journal);
      recordRunEnd(journal, done, { exitCode: 0 });
      expect(await lastRunView(journal.store, [])).toMatchObject({
        exit_code: 0,
        stop_reason: null,
        needs_attention: false,
      });
      expect(lastRunLines(await lastRunView(journal.store, []))).toEqual([]);

      const stopped = recordRunStart(journal);
      recordRunEnd(journal, stopped, {
        exitCode: 4,
        stopReason: 'deadline',
        message: 'deadline reached (T): 1 submission(s) \u001b[31mcut',
      });
      const view = (await lastRunView(journal.store, []))!;
      expect(view).toMatchObject({ exit_code: 4, stop_reason: 'deadline', needs_attention: true, running: false });
      const lines = lastRunLines(view);
      expect(lines[1]).toMatch(/^last run stopped \(deadline, exit 4\), pid \d+ on .+, started \d{4}-/);
      expect(lines[2]).toBe('  deadline reached (T): 1 submission(s) \\u001b[31mcut');

      recordRunStart(journal);
      const live = (await lastRunView(journal.store, [
        { pid: process.pid, host: hostname(), heartbeatAt: Date.now() },
      ]))!;
      expect(live).toMatchObject({ running: true, needs_attention: false, ended_at: null });
      const killed = (await lastRunView(journal.store, []))!;
      expect(killed).toMatchObject({ running: false, needs_attention: true, ended_at: null });
      expect(killed.message).toMatch(/ended without recording how \(killed or crashed\)/);
      // A SIGKILL leaves its lock row behind: a stale heartbeat is not a live run.
      expect(
        await lastRunView(journal.store, [{ pid: process.pid, host: hostname(), heartbeatAt: Date.now() - 60_000 }]),
      ).toMatchObject({ running: false, needs_attention: true });
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      rawDb(journal).prepare('UPDATE runs SET pid = ? WHERE ended_at IS NULL').run(gone);
      expect(
        await lastRunView(journal.store, [{ pid: gone, host: hostname(), heartbeatAt: Date.now() }]),
      ).toMatchObject({
        running: false,
        needs_attention: true,
      });
    } finally {
      journal.close();
    }
  });
});
