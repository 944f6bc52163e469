// On a PostgreSQL journal a text answer is booked only after a fresh read of the job's group ratios (another
// runner may have seen the gateway charge above the table). That read is the booking's wait, not the lane's: a
// real `gbatch run` at --concurrency 1 reaches the real server through a proxy that holds every read of the
// ratios once the first answer is on its way, and the next rows are sent meanwhile. Released, every answer is
// booked at its price and the run ends normally.
import { onTestFinished, describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, startCli } from '../../helpers/cli.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { startPgHoldProxy } from '../../helpers/pg-hold-proxy.js';
import { workspace } from '../../helpers/workspace.js';

const CHAT = '/v1/chat/completions';

describe.skipIf(!pgAvailable() || !BUILT)('the ratio read before a text answer is booked', () => {
  const db = usePgSchema('gbatch_booking_read');

  test('does not hold the lane: the next rows are sent while it waits, and every answer is booked after it', async () => {
    const server = new URL(db.url());
    const proxy = await startPgHoldProxy(server.hostname, Number(server.port || 5432), (sql) =>
      /\bFROM drifts WHERE job_id\b/.test(sql),
    );
    onTestFinished(() => proxy.close());
    // Armed as the first request arrives: the reads of the start pass, every booking's read is held.
    const gw = await startHostileGateway({
      routes: {
        chat: async (req, res, g) => {
          proxy.arm();
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
    // The first answer waits for its read; its slot does not: the other two rows go out on the one slot.
    await Promise.race([gw.reached((g) => g.count('POST', CHAT) === 3), run.result]);
    expect(gw.count('POST', CHAT)).toBe(3);
    expect(proxy.held()).toBeGreaterThanOrEqual(1);
    const { rows: waiting } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM items WHERE state = 'submitting'`,
    );
    expect(waiting[0]!.n).toBeGreaterThanOrEqual(1); // at least the first answer is not booked yet

    proxy.release();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|\n\s+at /);
    const { rows } = await db.query<{ id: string; state: string; actual_usd: number; reserved_usd: number }>(
      'SELECT id, state, actual_usd::float8 AS actual_usd, reserved_usd::float8 AS reserved_usd FROM items ORDER BY id',
    );
    expect(rows.map((r) => [r.id, r.state])).toEqual([
      ['c1', 'downloaded'],
      ['c2', 'downloaded'],
      ['c3', 'downloaded'],
    ]);
    for (const row of rows) {
      expect(row.actual_usd).toBeGreaterThan(0);
      expect(row.reserved_usd).toBe(0);
    }
  });
});
