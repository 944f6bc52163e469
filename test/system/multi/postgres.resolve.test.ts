// An operator's resolve on a PostgreSQL journal, as a user runs it (issue 19): an abandoned uncertain row's
// bound stays in the job's reserved total until --not-billed, and a task the journal holds for another row
// is refused. The journal methods behind it run both adapters' conformance suite; this is the CLI over them.
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
});
