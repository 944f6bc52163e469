// An SQLite journal written by a newer gbatch: every command refuses it with exit 2 and one line naming the file
// and both schema versions, as on PostgreSQL; nothing is sent (it was exit 70, "internal error", for `run`).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openJournalFile } from '../../../src/journal/open-store.js';
import { SCHEMA_VERSION } from '../../../src/journal/sqlite/schema.js';
import { BUILT, gatewayEnv, runCli, workspaceRunArgs } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('an SQLite journal of a newer gbatch', () => {
  it('is refused by run, status and report with exit 2 and one line; nothing reaches the gateway', async () => {
    const ws = workspace('gbatch-newer-');
    const manifest = writeJsonl(ws.path('m.jsonl'), [chatRow('a', 'hello')]);
    await openJournalFile(ws.state).close();
    const db = new Database(ws.state);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    // A gateway on a closed port: a run that sent anything would fail otherwise, not with this line.
    const env = gatewayEnv('http://127.0.0.1:9', 'sk-newer-test-key');
    for (const args of [
      workspaceRunArgs(ws, manifest),
      ['status', '--state', ws.state],
      ['report', '--state', ws.state],
    ]) {
      const result = await runCli(args, { env, cwd: ws.dir });
      const lines = result.stderr.trim().split('\n');
      expect({ args: args[0], code: result.code, lines }).toEqual({
        args: args[0],
        code: 2,
        lines: [
          expect.stringContaining(
            `${ws.state}: journal schema version ${SCHEMA_VERSION + 1} is newer than this gbatch supports (${SCHEMA_VERSION}); upgrade gbatch`,
          ),
        ],
      });
    }
  });
});
