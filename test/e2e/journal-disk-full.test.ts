// The journal's own disk fills up while requests are in flight (a real tmpfs): the run stops with one
// line naming the cause and exit 75, never exit 70 with a stack; nothing is sent once the journal cannot
// take an intent; and the next run, with room again, tells the truth about the answers it could not record.
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli } from './helpers/cli.js';
import { chatRow, writeJsonl } from './helpers/manifests.js';
import { CAN_MOUNT, mountTmpfs } from './helpers/tmpfs.js';
import { until } from './helpers/wait.js';
import { workspace } from './helpers/workspace.js';
import { DEFAULTS, startHostileGateway } from '../hostile/hostile-gateway.js';

function fillUp(dir: string): void {
  const chunk = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      appendFileSync(join(dir, 'filler'), chunk);
    } catch {
      return; // ENOSPC: full
    }
  }
}

test.skipIf(!BUILT || !CAN_MOUNT)('the journal\'s disk fills up mid-run: exit 75 with the cause in one line, nothing sent after, no stack', async () => {
  const ws = workspace();
  const disk = mountTmpfs('2m');
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const gw = await startHostileGateway({ routes: { chat: async (req, res, g) => { await held; DEFAULTS.chat(req, res, g); } } });
  onTestFinished(() => gw.close());
  const manifest = writeJsonl(ws.path('rows.jsonl'), Array.from({ length: 6 }, (_, i) => chatRow(`c${i}`, `Question ${i}`)));
  const state = join(disk.dir, 'job.db');
  const args = ['run', manifest, '--state', state, '--out', ws.out, '--concurrency', '2', '--quiet'];
  const env = gatewayEnv(gw.baseUrl, gw.key);

  const run = startCli(args, { env });
  await until(() => gw.count('POST', '/v1/chat/completions') === 2); // both intents are durable
  fillUp(disk.dir);
  release();
  const ended = await run.result;
  expect(ended.code, ended.stderr).toBe(75);
  expect(ended.stderr).toMatch(/the journal could not be written: the disk is full \(SQLITE_FULL\)/);
  expect(ended.stderr).not.toMatch(/internal error|Please report|\n\s+at /);
  expect(gw.count('POST', '/v1/chat/completions')).toBe(2); // no intent could be written after: nothing sent

  rmSync(join(disk.dir, 'filler'));
  const again = await runCli(args, { env });
  // The two answers the journal could not record may have been billed: they are uncertain, never resent.
  expect(again.code, again.stderr).toBe(4);
  expect(gw.count('POST', '/v1/chat/completions')).toBe(6);
});
