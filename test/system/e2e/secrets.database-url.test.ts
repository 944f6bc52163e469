// A database password holding '/', '?' or '#' (not percent-encoded) stays out of the refusal of its URL:
// `run`, `status` and GBATCH_JOURNAL_URL answer exit 2 with one line naming the URL without it.
import { expect, onTestFinished, test } from 'vitest';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, type CliResult } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';

const PIECES = ['Pw1x', 'Pw2y'];

function refusedWithoutPassword(result: CliResult, command: string): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(
      `^gbatch ${command}: postgres://(\\*\\*\\*|gb:\\*\\*\\*@127\\.0\\.0\\.1:1/test): (not a usable PostgreSQL URL|cannot connect) \\(`,
    ),
  );
  for (const piece of PIECES) {
    expect(result.stderr).not.toContain(piece);
    expect(result.stdout).not.toContain(piece);
  }
}

test.skipIf(!BUILT)(
  'a password with "/", "?" or "#" is not printed by run, status or GBATCH_JOURNAL_URL refusals',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway();
    onTestFinished(() => gw.close());
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi')]);
    // Port 1: whichever host a parser reads (the last: 127.0.0.1, port 1, the rest a fragment), nothing listens.
    const urls = ['gb:Pw1x/Pw2y', 'gb:Pw1x?Pw2y', 'gb:Pw1x#Pw2y', '127.0.0.1:1#Pw2y'].map(
      (credentials) => `postgres://${credentials}@127.0.0.1:1/test`,
    );
    const results = await Promise.all(
      urls.flatMap((url) => [
        runCli(['run', manifest, '--journal', url], { env, cwd: ws.dir }).then((r) => [r, 'run'] as const),
        runCli(['status', 'rows', '--journal', url], { cwd: ws.dir }).then((r) => [r, 'status'] as const),
        runCli(['status', 'rows'], { cwd: ws.dir, env: { GBATCH_JOURNAL_URL: url } }).then(
          (r) => [r, 'status'] as const,
        ),
      ]),
    );
    for (const [result, command] of results) refusedWithoutPassword(result, command);
    expect(gw.requests).toHaveLength(0);
  },
);
