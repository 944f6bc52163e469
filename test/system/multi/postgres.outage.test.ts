// The PostgreSQL journal goes out of reach under a live `gbatch run` (a real child process, the real
// server): the run reaches the server through a proxy the test cuts (every session dropped, new ones
// refused) while submissions and polls are in flight.
// A brief outage is ridden out and the run finishes normally; one that outlasts the bound stops every lane
// at once and ends as a handled stop (75, the cause in one line, no unhandled rejection). Either way every
// answer the gateway gave is in the journal: no row is left to become uncertain for an answer that arrived.
import { onTestFinished, describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, startCli } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { pgAvailable, usePgSchema, type PgSchema } from '../../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { DEFAULTS, startHostileGateway, type HostileGateway } from '../../helpers/hostile-gateway.js';

interface Held {
  gw: HostileGateway;
  release(): void;
  inFlight(): number;
}

/** A gateway whose chat answers and polls wait until released; video submissions answer at once. */
async function holdingGateway(): Promise<Held> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let waiting = 0;
  const hold =
    (route: typeof DEFAULTS.chat): typeof DEFAULTS.chat =>
    async (req, res, g) => {
      waiting++;
      await held;
      waiting--;
      await route(req, res, g);
    };
  const gw = await startHostileGateway({ routes: { chat: hold(DEFAULTS.chat), videoPoll: hold(DEFAULTS.videoPoll) } });
  onTestFinished(() => gw.close());
  return { gw, release, inFlight: () => waiting };
}

/** Every answer the gateway gave has its id in the journal: each video task id, each chat answer's id. */
async function expectEveryAnswerKept(db: PgSchema, gw: HostileGateway): Promise<void> {
  const { rows } = await db.query<{ id: string; state: string; task_id: string | null; response: string | null }>(
    'SELECT id, state, task_id, response::text AS response FROM items',
  );
  expect(rows.filter((r) => r.state === 'uncertain' || r.state === 'submitting').map((r) => r.id)).toEqual([]);
  const taskIds = new Set(rows.map((r) => r.task_id));
  for (const task of gw.tasks.keys()) expect(taskIds.has(task), `task ${task}`).toBe(true);
  const answerIds = new Set(rows.map((r) => (r.response ? (JSON.parse(r.response) as { id?: string }).id : undefined)));
  for (const charge of gw.charges.filter((c) => c.kind === 'chat'))
    expect(answerIds.has(charge.ref), `answer ${charge.ref}`).toBe(true);
}

describe.skipIf(!pgAvailable() || !BUILT)('the PostgreSQL journal out of reach mid-run', () => {
  const db = usePgSchema('gbatch_outage');

  /** The run reaches the server only through `proxy`: cutting it is an outage of the journal's database. */
  async function startRun(
    held: Held,
    extraEnv: Record<string, string> = {},
  ): Promise<{ run: ReturnType<typeof startCli>; proxy: TcpProxy }> {
    const ws = workspace();
    const server = new URL(db.url());
    const proxy = await startTcpProxy(server.hostname, Number(server.port || 5432));
    onTestFinished(() => proxy.close());
    const url = db.url().replace(`@${server.host}/`, `@127.0.0.1:${proxy.port}/`);
    const manifest = writeJsonl(ws.path(`outage${proxy.port}.jsonl`), [
      videoRow('v1', 'A comet'),
      videoRow('v2', 'A harbour'),
      ...['c1', 'c2', 'c3', 'c4'].map((id) => chatRow(id, `Question ${id}`)),
    ]);
    const run = startCli(
      ['run', manifest, '--journal', url, '--out', ws.out, '--poll-interval', '0.05', '--concurrency', '2', '--quiet'],
      { env: { ...gatewayEnv(held.gw.baseUrl, held.gw.key), ...extraEnv } },
    );
    onTestFinished(() => {
      run.child.kill('SIGKILL');
    });
    // Two chat answers and the videos' polls are held at the gateway: submissions and polls in flight.
    await held.gw.reached(
      (gw) => gw.count('POST', '/v1/chat/completions') === 2 && gw.count('GET', '/v1/video/generations/') >= 2,
    );
    return { run, proxy };
  }

  test('the server out of reach while answers arrive, a brief outage: ridden out, the run finishes normally, every answer kept', async () => {
    const held = await holdingGateway();
    const { run, proxy } = await startRun(held);
    proxy.cut();
    held.release();
    // The answers' writes meet the outage: the server is out of reach while they arrive, then back.
    await Promise.race([proxy.refusedReached(3), run.result]);
    proxy.restore();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(proxy.refused()).toBeGreaterThanOrEqual(3);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    await expectEveryAnswerKept(db, held.gw);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE state = 'downloaded'`);
    expect(rows[0]!.n).toBe(6);
  });

  test('an outage past the bound: every lane stops at once, exit 75 with the cause in one line, every answer in flight kept', async () => {
    const held = await holdingGateway();
    const { run, proxy } = await startRun(held, { GBATCH_JOURNAL_OUTAGE_MS: '1500' });
    proxy.cut();
    await Promise.race([run.stderrMatching(/stopping: /), run.result]); // a lane gave up on the journal: nothing more starts
    proxy.restore();
    held.release(); // the answers on the wire arrive once the database is back: they are recorded
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(75);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    expect(ended.stderr).toMatch(
      /the journal's database could not be reached \(.+\) after retrying: nothing more was sent/,
    );
    expect(held.gw.count('POST', '/v1/chat/completions')).toBe(2); // nothing was sent after the stop
    await expectEveryAnswerKept(db, held.gw);
  });
});
