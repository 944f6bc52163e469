// An operator's resolve on a PostgreSQL journal, as a user runs it (issue 19): an abandoned uncertain row's
// bound stays in the job's reserved total until --not-billed, and a task the journal holds for another row
// is refused, also a row of another job in the same database (one database for every night's job). The
// journal methods behind it run both adapters' conformance suite; this is the CLI over them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { assertBuilt, describeEnd, gbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { appendJsonl, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim, tasksFor } from '../../helpers/sim.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'gbatch-pgresolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())('resolve on a PostgreSQL journal', () => {
  const db = usePgSchema('gbatch_pgresolve');
  // The nights' own database: a simulator started afresh names its tasks as the last one did.
  const nights = usePgSchema('gbatch_pgnights');

  test("another row's task is refused; --abandon keeps the bound in the job's reserved total; --not-billed releases it", async () => {
    assertBuilt();
    const sim = await startSim();
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: KEY };
    const manifest = writeJsonl(join(dir, 'night.jsonl'), [videoRow('v1', 'a lighthouse')]);
    const run = () =>
      gbatch(
        [
          'run',
          manifest,
          '--journal',
          db.url(),
          '--out',
          join(dir, 'out'),
          '--poll-interval',
          '0.05',
          '--quiet',
          '--json',
        ],
        gateway,
      );
    const cli = (...args: string[]) => gbatch([...args, '--journal', db.url()], gateway);
    expect((await run()).code).toBe(0);
    appendJsonl(manifest, [videoRow('v2', 'a heron')]);
    sim.faults.acceptThenDropRate = 1;
    const second = await run();
    expect(second.code, describeEnd('run', second)).toBe(4);
    sim.faults.acceptThenDropRate = 0;

    const [t1] = tasksFor(sim.ledger, 'a lighthouse');
    const refused = await cli('resolve', 'night', 'v2', '--task-id', t1!.id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`task ${t1!.id} is already item 'v1''s task`));

    const reserved = async () => JSON.parse((await cli('status', 'night', '--json')).stdout).reserved_usd as number;
    const bound = await reserved();
    expect(bound).toBeGreaterThan(0);
    const abandoned = await cli('resolve', 'night', 'v2', '--abandon');
    expect(abandoned.code, describeEnd('resolve', abandoned)).toBe(0);
    expect(abandoned.stdout).toContain('gbatch resolve night --journal');
    expect(await reserved()).toBe(bound);
    const released = await cli('resolve', 'night', 'v2', '--abandon', '--not-billed');
    expect(released.code, describeEnd('resolve', released)).toBe(0);
    expect(await reserved()).toBe(0);
  });

  test("one database for every night's job: night 2's uncertain row is refused night 1's task, naming its job", async () => {
    assertBuilt();
    const sim = await startSim();
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: KEY };
    const run = (night: string) =>
      gbatch(
        [
          'run',
          join(dir, `${night}.jsonl`),
          '--journal',
          nights.url(),
          '--out',
          join(dir, `out-${night}`),
          '--poll-interval',
          '0.05',
          '--quiet',
          '--json',
        ],
        gateway,
      );
    const cli = (...args: string[]) => gbatch([...args, '--journal', nights.url()], gateway);
    // The same item id on both nights: a row of another job is another row, whatever its id.
    writeJsonl(join(dir, 'monday.jsonl'), [videoRow('v1', 'a windmill at noon')]);
    writeJsonl(join(dir, 'tuesday.jsonl'), [videoRow('v1', 'a windmill at night')]);
    const monday = await run('monday');
    expect(monday.code, describeEnd('run', monday)).toBe(0);
    sim.faults.acceptThenDropRate = 1;
    const tuesday = await run('tuesday');
    expect(tuesday.code, describeEnd('run', tuesday)).toBe(4);
    sim.faults.acceptThenDropRate = 0;

    const [mondays] = tasksFor(sim.ledger, 'a windmill at noon');
    const refused = await cli('resolve', 'tuesday', 'v1', '--task-id', mondays!.id, '--no-verify');
    expect(refused.code, describeEnd('resolve', refused)).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `gbatch resolve: task ${mondays!.id} is already item 'v1''s task in job 'monday': attached here, its video would be saved under the wrong row; pass --force to attach it anyway; nothing changed`,
    );
    const status = JSON.parse((await cli('status', 'tuesday', '--json')).stdout);
    expect(status.attention.uncertain.map((i: { id: string }) => i.id)).toEqual(['v1']);

    // Its own task attached, both nights' money is what the gateway took.
    const [tuesdays] = tasksFor(sim.ledger, 'a windmill at night');
    const own = await cli('resolve', 'tuesday', 'v1', '--task-id', tuesdays!.id, '--no-verify');
    expect(own.code, describeEnd('resolve', own)).toBe(0);
    const settled = await run('tuesday');
    expect(settled.code, describeEnd('run', settled)).toBe(0);
    const spent = async (night: string) =>
      JSON.parse((await cli('report', night, '--format', 'json')).stdout).totals.actual_usd as number;
    expect((await spent('monday')) + (await spent('tuesday'))).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
  });
});
