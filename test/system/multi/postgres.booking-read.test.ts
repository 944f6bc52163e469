// On a PostgreSQL journal a text answer is booked at once, at the group ratio its runner knows, and then checked
// against the job's ratios read afresh (another runner may have seen the gateway charge above the table). A real
// `gbatch run` at --concurrency 1 reaches the real server through a proxy that holds every read of the ratios
// once the first request is on the wire, while the test records a ratio of x2 as another runner would: the rows
// are sent and their answers durable meanwhile, and once the reads go through, each answer is charged at x2, the
// job's money with it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished, describe, expect, test } from 'vitest';
import { accountId } from '../../../src/gateway/account-id.js';
import { BUILT, gatewayEnv, startCli } from '../../helpers/cli.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { startPgHoldProxy } from '../../helpers/pg-hold-proxy.js';
import { fileChange } from '../../helpers/wait.js';
import { workspace } from '../../helpers/workspace.js';

const CHAT = '/v1/chat/completions';
/** video-mini at 720p, 5 s: the built-in pricing table says $0.18417168; seen charged twice that. */
const TABLE_USD = 0.18417168;

describe.skipIf(!pgAvailable() || !BUILT)("a text answer's booking against the job's ratios", () => {
  const db = usePgSchema('gbatch_booking_read');

  test('is durable before the ratio read, and a ratio another runner recorded before the answer corrects it', async () => {
    const server = new URL(db.url());
    const proxy = await startPgHoldProxy(server.hostname, Number(server.port || 5432), (sql) =>
      /\bFROM drifts WHERE job_id\b/.test(sql),
    );
    onTestFinished(() => proxy.close());
    let recorded: Promise<unknown> | undefined;
    const gw = await startHostileGateway({
      routes: {
        chat: async (req, res, g) => {
          // Before the first answer leaves: the runner's reads of the ratios held from now on, and x2 recorded
          // for its account as another runner of the job would.
          proxy.arm();
          recorded ??= db.query(
            `INSERT INTO drifts (job_id, account, model, item_id, ratio, table_usd, gateway_charge_usd, total_tokens,
               resolution, final_resolution, has_reference_video, seen_at)
             SELECT id, $1, 'video-mini', 'v1', 2, $2, $3, 108900, '720p', '720p', false, 0 FROM jobs`,
            [accountId(g.baseUrl, g.key), TABLE_USD, TABLE_USD * 2],
          );
          await recorded;
          await DEFAULTS.chat(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const ws = workspace();
    const manifest = writeJsonl(
      ws.path('booking-read.jsonl'),
      ['c1', 'c2', 'c3'].map((id) => chatRow(id, `Question ${id}`)),
    );
    const url = db.url().replace(`@${server.host}/`, `@127.0.0.1:${proxy.port}/`);
    const run = startCli(['run', manifest, '--journal', url, '--out', ws.out, '--concurrency', '1', '--quiet'], {
      env: gatewayEnv(gw.baseUrl, gw.key),
    });
    onTestFinished(() => {
      run.child.kill('SIGKILL');
    });

    await Promise.race([proxy.holding(), run.result]);
    // Each answer's booking is durable while the reads wait: results.jsonl, written from the journal's rows, holds
    // all three, and the one slot went on to each next row.
    const results = join(ws.out, 'results.jsonl');
    const lines = (): number =>
      existsSync(results) ? readFileSync(results, 'utf8').split('\n').filter(Boolean).length : 0;
    await Promise.race([fileChange(ws.out, () => lines() === 3), run.result]);
    expect(lines()).toBe(3);
    expect(gw.count('POST', CHAT)).toBe(3);
    const booked = async (): Promise<Array<{ id: string; state: string; actual_usd: number | null }>> =>
      (
        await db.query<{ id: string; state: string; actual_usd: number | null }>(
          'SELECT id, state, actual_usd::float8 AS actual_usd FROM items ORDER BY id',
        )
      ).rows;
    expect(proxy.held()).toBeGreaterThanOrEqual(1);
    const atFirst = await booked();
    for (const row of atFirst) expect(row.actual_usd).toBeGreaterThan(0);

    proxy.release();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    const after = await booked();
    expect(after.map((r) => r.state)).toEqual(['downloaded', 'downloaded', 'downloaded']);
    after.forEach((row, i) => expect(row.actual_usd!).toBeCloseTo(atFirst[i]!.actual_usd! * 2, 9));
    const { rows: job } = await db.query<{ actual: number }>('SELECT actual_usd::float8 AS actual FROM jobs');
    expect(job[0]!.actual).toBeCloseTo(
      after.reduce((sum, r) => sum + r.actual_usd!, 0),
      9,
    );
  });
});
