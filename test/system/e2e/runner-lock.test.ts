// Who owns a journal: a runner stopped (SIGSTOP) long past the stale threshold is alive on this host and
// is never taken over; a runner whose lock was taken anyway stops without writing another row; `status`
// tells a live runner from a dead pid.
import { openSqliteFile } from '../../helpers/journal-raw.js';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

/** The documented test knob: the stale threshold, here far below the real 30 s. */
const STALE_MS = 300;

function lockRow(state: string): { pid: number; host: string; heartbeat_at: number; token: string } | undefined {
  const db = openSqliteFile(state, { readonly: true });
  try {
    return db.prepare('SELECT * FROM runner_lock WHERE id = 1').get() as
      { pid: number; host: string; heartbeat_at: number; token: string } | undefined;
  } finally {
    db.close();
  }
}

/** Whether another connection holds the journal's write lock now (asked without waiting). */
function writeLocked(state: string): boolean {
  const db = openSqliteFile(state, { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}

async function stoppedRunner() {
  const ws = workspace();
  const sim = await startSim({ taskSeconds: 1 });
  const env = { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_LOCK_STALE_MS: String(STALE_MS) };
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    videoRow('v1', 'A harbour at dawn'),
    videoRow('v2', 'Snow on a roof'),
  ]);
  const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.1', '--quiet'];
  const first = startCli(args, { env });
  await sim.ledger.reached((ledger) => posts(ledger) === 2);
  expect(lockRow(ws.state)).toBeDefined(); // taken before anything was sent
  first.child.kill('SIGSTOP');
  // A stop that lands inside one of its commits (an fsync under load takes milliseconds) leaves the
  // journal write-locked for as long as it is stopped: let it finish that commit and stop it again.
  while (writeLocked(ws.state)) {
    first.child.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGSTOP');
  }
  // Stopped until its heartbeat is older than the stale threshold: by the heartbeat alone, it is gone. The
  // threshold is the other process's wall clock (shortened by GBATCH_LOCK_STALE_MS), so real time must pass.
  const staleAt = lockRow(ws.state)!.heartbeat_at + 2 * STALE_MS;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, staleAt - Date.now()) + 1));
  return { ws, sim, env, args, first };
}

test.skipIf(!BUILT)(
  'a runner stopped past the stale threshold is alive on this host: a second run refuses; resumed, the first finishes',
  async () => {
    const { ws, sim, env, args, first } = await stoppedRunner();
    try {
      const second = await runCli(args, { env });
      expect(second.code, second.stderr).toBe(73);
      expect(second.stderr).toContain(
        `another gbatch run (pid ${first.child.pid} on ${hostname()}) is using this journal`,
      );
      expect(posts(sim.ledger)).toBe(2);

      const status = await runCli(['status', '--state', ws.state], { env });
      expect(status.stdout).toMatch(
        new RegExp(`runner pid ${first.child.pid} on ${hostname()}: alive \\(heartbeat \\d+ s ago\\)`),
      );
    } finally {
      first.child.kill('SIGCONT');
    }
    const ended = await first.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).not.toMatch(/taking over|lost its lock/);
    expect(posts(sim.ledger)).toBe(2);
    expect(readJournal(ws.state).counts.downloaded).toBe(2);
  },
);

test.skipIf(!BUILT)(
  'a runner that comes back to find its lock taken writes no further row and exits 75 saying so',
  async () => {
    const { ws, first } = await stoppedRunner();
    // Another host's runner took the journal over (only another host can: a live pid here never is).
    const db = openSqliteFile(ws.state);
    db.prepare(
      `UPDATE runner_lock SET pid = 4242, host = 'other-host.example', token = 'theirs', heartbeat_at = ?`,
    ).run(Date.now());
    const eventsBefore = db.prepare('SELECT COUNT(*) AS n FROM events').get();
    const itemsBefore = db.prepare('SELECT * FROM items ORDER BY seq').all();
    db.close();

    first.child.kill('SIGCONT');
    const ended = await first.result;
    expect(ended.code, ended.stderr).toBe(75);
    expect(ended.stderr).toContain(`this run lost its lock on ${ws.state}`);
    expect(ended.stderr).not.toMatch(/internal error/);
    const after = openSqliteFile(ws.state, { readonly: true });
    expect(after.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual(eventsBefore);
    expect(after.prepare('SELECT * FROM items ORDER BY seq').all()).toEqual(itemsBefore);
    expect(lockRow(ws.state)).toMatchObject({ token: 'theirs', host: 'other-host.example' });
    after.close();
  },
);

test.skipIf(!BUILT)(
  'status: a lock naming a dead pid on this host is "no live runner", in words and in --json',
  async () => {
    const ws = workspace();
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v1', 'A quiet street')]);
    const ingest = await runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--ingest-only', '--quiet']);
    expect(ingest.code, ingest.stderr).toBe(0);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    const db = openSqliteFile(ws.state);
    const at = Date.now() - 180_000;
    db.prepare(
      `INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at) VALUES (1, ?, ?, 'killed', ?, ?)`,
    ).run(child.pid, hostname(), at, at);
    db.close();

    const text = await runCli(['status', '--state', ws.state]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `no live runner: pid ${child.pid} on ${hostname()} is gone (last heartbeat 3 min ago); the next run takes over`,
    );
    expect(text.stdout).not.toMatch(/runner is active/);

    const json = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(json.runner).toMatchObject({ pid: child.pid, host: hostname(), heartbeatAt: at, alive: false });
    expect(json.runner.heartbeat_age_s).toBeGreaterThanOrEqual(180);
    expect(json.runner.heartbeat_age_s).toBeLessThan(200);
  },
);
