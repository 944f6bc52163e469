// The commands on a PostgreSQL journal, as a user runs them: `journal migrate`, run / status / report /
// plan / resolve by --journal or GBATCH_JOURNAL_URL, and the URL's password nowhere: not in any output,
// not in the journal's tables, not in the outputs.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { assertBuilt, describeEnd, gbatch, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const API_KEY = 'sk-pg-cli';
const PASSWORD = 'pw-S3cret-never-shown';

const dir = mkdtempSync(join(tmpdir(), 'gbatch-pgcli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The test server's URL with a password in it (trust auth ignores it; gbatch must still hide it). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

describe.skipIf(!pgAvailable())('the commands on a PostgreSQL journal', () => {
  const db = usePgSchema('gbatch_pgcli');

  test('journal migrate creates the schema once; a second run finds it current', async () => {
    const gateway = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY };
    const first = await gbatch(['journal', 'migrate', '--journal', db.url()], gateway);
    expect(first.code, describeEnd('migrate', first)).toBe(0);
    expect(first.stdout).toMatch(/journal schema at version \d+ \(\d+ step\(s\) applied\)/);
    const second = await gbatch(['journal', 'migrate', '--journal', db.url()], gateway);
    expect(second.stdout).toMatch(/\(already current\)/);
  });

  test('run, status, report, plan and resolve by URL: the password appears nowhere', async () => {
    assertBuilt();
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 9, taskSeconds: 0.2 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const url = withPassword(db.url());
      const manifest = writeJsonl(join(dir, 'secret.jsonl'), [
        chatRow('c1', 'a chat row'),
        videoRow('v1', 'a video row'),
        chatRow('c2', 'another chat row'),
      ]);
      const out = join(dir, 'out');
      const ran = await gbatch(
        ['run', manifest, '--journal', url, '--out', out, '--poll-interval', '0.05', '--quiet', '--budget', '5'],
        gateway,
      );
      expect(ran.code, describeEnd('run', ran)).toBe(0);
      expect(ran.stdout).toBe('Finished: 3 downloaded.\n');

      const printed = [ran];
      printed.push(await gbatch(['status', 'secret', '--journal', url], gateway));
      printed.push(await gbatch(['status', 'secret', '--json', '--journal', url], gateway));
      printed.push(await gbatch(['report', manifest, '--journal', url, '--format', 'json'], gateway));
      printed.push(await gbatch(['plan', manifest, '--journal', url], gateway));
      printed.push(await gbatch(['resolve', 'secret', 'c1', '--abandon', '--journal', url], gateway)); // refused: downloaded
      printed.push(
        await gbatch(['status', 'secret', '--journal', url.replace(/@127\.0\.0\.1:?\d*\//, '@127.0.0.1:1/')], gateway),
      ); // no server there
      const viaEnv = await startGbatch(['status', 'secret', '--json'], gateway, undefined, { GBATCH_JOURNAL_URL: url })
        .ended;
      printed.push(viaEnv);

      expect(printed.map((e) => e.code)).toEqual([0, 0, 0, 0, 0, 2, 2, 0]);
      const status = JSON.parse(printed[2]!.stdout) as { counts: Record<string, number>; state: string };
      expect(status.counts.downloaded).toBe(3);
      expect(status.state).toBe(
        new URL(db.url()).protocol + '//postgres:***@' + new URL(db.url()).host + new URL(db.url()).pathname,
      );
      expect(JSON.parse(viaEnv.stdout).counts.downloaded).toBe(3);
      expect(printed[6]!.stderr).toMatch(/postgres:\*\*\*@127\.0\.0\.1:1\/\w+: cannot connect \(ECONNREFUSED\)/);
      for (const ended of printed)
        expect(ended.stdout + ended.stderr, describeEnd('a command', ended)).not.toContain(PASSWORD);
      // The report's times come from the database's event log; the HTML page names the journal without the password.
      const report = JSON.parse(printed[3]!.stdout) as {
        totals: { duration_ms: number };
        items: Array<{ id: string; submitted_at: string | null; duration_ms: number | null }>;
      };
      expect(report.totals.duration_ms).toBeGreaterThan(0);
      for (const item of report.items) {
        expect(item.submitted_at, item.id).toMatch(/^20\d\d-/);
        expect(item.duration_ms, item.id).toBeGreaterThanOrEqual(0);
      }
      const page = join(dir, 'report.html');
      const html = await gbatch(['report', manifest, '--journal', url, '--format', 'html', '--output', page], gateway);
      expect(html.code, describeEnd('report --format html', html)).toBe(0);
      expect(readFileSync(page, 'utf8')).toMatch(
        /gbatch report: <span class="job">secret<\/span>[\s\S]*Video task durations/,
      );
      expect(readFileSync(page, 'utf8')).not.toContain(PASSWORD);

      // Nothing in the journal's tables holds it (the run's saved options name the journal without it).
      const tables = ['jobs', 'items', 'events', 'runs', 'runners', 'manifests'];
      for (const table of tables) {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE $1`,
          [`%${PASSWORD}%`],
        );
        expect(rows[0]!.n, `rows of ${table} holding the password`).toBe(0);
      }
      const {
        rows: [job],
      } = await db.query<{ options: string }>(`SELECT options FROM jobs WHERE name = 'secret'`);
      expect(JSON.parse(job!.options).journal).toMatch(/^postgres:\/\/postgres:\*\*\*@/);
      for (const file of readdirSync(out, { recursive: true }) as string[]) {
        expect(readFileSync(join(out, file)).includes(PASSWORD), `${file} holds the password`).toBe(false);
      }
      expect(PG_TEST_URL).not.toContain(PASSWORD);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
