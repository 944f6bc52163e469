// The PostgreSQL journal goes out of reach under a live `gbatch run` (a real child process, the real
// server): its sessions are ended with pg_terminate_backend while submissions and polls are in flight.
// A brief outage is ridden out and the run finishes normally; one that outlasts the bound stops every lane
// at once and ends as a handled stop (75, the cause in one line, no unhandled rejection). Either way every
// answer the gateway gave is in the journal: no row is left to become uncertain for an answer that arrived.
import { randomBytes } from 'node:crypto';
import { onTestFinished, describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, startCli } from '../e2e/helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../e2e/helpers/manifests.js';
import { until } from '../e2e/helpers/wait.js';
import { workspace } from '../e2e/helpers/workspace.js';
import { pgAvailable, usePgSchema, type PgSchema } from '../helpers/postgres.js';
import { DEFAULTS, startHostileGateway, type HostileGateway } from '../hostile/hostile-gateway.js';

interface Held { gw: HostileGateway; release(): void; inFlight(): number }

/** A gateway whose chat answers and polls wait until released; video submissions answer at once. */
async function holdingGateway(): Promise<Held> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let waiting = 0;
  const hold = (route: typeof DEFAULTS.chat): typeof DEFAULTS.chat => async (req, res, g) => {
    waiting++;
    await held;
    waiting--;
    await route(req, res, g);
  };
  const gw = await startHostileGateway({ routes: { chat: hold(DEFAULTS.chat), videoPoll: hold(DEFAULTS.videoPoll) } });
  onTestFinished(() => gw.close());
  return { gw, release, inFlight: () => waiting };
}

/** Ends every session of the run (by its application_name) every few ms until stopped. */
function terminating(db: PgSchema, app: string): { stop(): Promise<void>; ended: () => number } {
  let ended = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [app]);
      ended += rows[0]!.n;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const stop = async (): Promise<void> => {
    stopped = true;
    await loop;
  };
  onTestFinished(() => stop().catch(() => undefined));
  return { stop, ended: () => ended };
}

/** Every answer the gateway gave has its id in the journal: each video task id, each chat answer's id. */
async function expectEveryAnswerKept(db: PgSchema, gw: HostileGateway): Promise<void> {
  const { rows } = await db.query<{ id: string; state: string; task_id: string | null; response: string | null }>(
    'SELECT id, state, task_id, response::text AS response FROM items');
  expect(rows.filter((r) => r.state === 'uncertain' || r.state === 'submitting').map((r) => r.id)).toEqual([]);
  const taskIds = new Set(rows.map((r) => r.task_id));
  for (const task of gw.tasks.keys()) expect(taskIds.has(task), `task ${task}`).toBe(true);
  const answerIds = new Set(rows.map((r) => (r.response ? (JSON.parse(r.response) as { id?: string }).id : undefined)));
  for (const charge of gw.charges.filter((c) => c.kind === 'chat')) expect(answerIds.has(charge.ref), `answer ${charge.ref}`).toBe(true);
}

describe.skipIf(!pgAvailable() || !BUILT)('the PostgreSQL journal out of reach mid-run', () => {
  const db = usePgSchema('gbatch_outage');

  async function startRun(held: Held, extraEnv: Record<string, string> = {}) {
    const ws = workspace();
    const app = `gbatch_outage_${randomBytes(4).toString('hex')}`;
    const url = `${db.url()}&application_name=${app}`;
    const manifest = writeJsonl(ws.path(`outage${app.slice(-8)}.jsonl`), [
      videoRow('v1', 'A comet'), videoRow('v2', 'A harbour'), ...['c1', 'c2', 'c3', 'c4'].map((id) => chatRow(id, `Question ${id}`)),
    ]);
    const run = startCli(['run', manifest, '--journal', url, '--out', ws.out, '--poll-interval', '0.05', '--concurrency', '2', '--quiet'],
      { env: { ...gatewayEnv(held.gw.baseUrl, held.gw.key), ...extraEnv } });
    onTestFinished(() => { run.child.kill('SIGKILL'); });
    // Two chat answers and the videos' polls are held at the gateway: submissions and polls in flight.
    await until(() => held.gw.count('POST', '/v1/chat/completions') === 2 && held.gw.count('GET', '/v1/video/generations/') >= 2, { timeoutMs: 20_000 });
    return { run, app };
  }

  test('its sessions ended while answers arrive, a brief outage: ridden out, the run finishes normally, every answer kept', async () => {
    const held = await holdingGateway();
    const { run, app } = await startRun(held);
    const killer = terminating(db, app);
    held.release();
    // The answers' writes meet the outage: sessions ended for a few hundred ms while they arrive.
    await Promise.race([until(() => killer.ended() >= 3, { timeoutMs: 10_000 }), run.result]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await killer.stop();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(killer.ended()).toBeGreaterThanOrEqual(3);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    await expectEveryAnswerKept(db, held.gw);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE state = 'downloaded'`);
    expect(rows[0]!.n).toBe(6);
  });

  test('an outage past the bound: every lane stops at once, exit 75 with the cause in one line, every answer in flight kept', async () => {
    const held = await holdingGateway();
    const { run, app } = await startRun(held, { GBATCH_JOURNAL_OUTAGE_MS: '1500' });
    const killer = terminating(db, app);
    await Promise.race([run.stderrMatching(/stopping: /), run.result]); // a lane gave up on the journal: nothing more starts
    await killer.stop();
    held.release(); // the answers on the wire arrive once the database is back: they are recorded
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(75);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    expect(ended.stderr).toMatch(/the journal's database could not be reached \(.+\) after retrying: nothing more was sent/);
    expect(held.gw.count('POST', '/v1/chat/completions')).toBe(2); // nothing was sent after the stop
    await expectEveryAnswerKept(db, held.gw);
  });
});
