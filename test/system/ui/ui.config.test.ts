// `gbatch ui`'s configuration: each mistake is one line and exit 2 before it listens; a port in use is 1.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('gbatch ui configuration', () => {
  it('refuses to start without tokens, off loopback without them, or on a folder that is not there', async () => {
    const ws = workspace('gbatch-ui-config-');
    const cases: Array<[string[], Record<string, string>, string]> = [
      [
        [],
        {},
        'gbatch ui: No sign-in tokens: set GBATCH_UI_TOKENS (comma-separated) or GBATCH_UI_TOKENS_FILE, or pass --no-auth (loopback only)',
      ],
      [
        ['--no-auth', '--host', '0.0.0.0'],
        {},
        'gbatch ui: --no-auth listens on loopback only (127.0.0.1, ::1, localhost), not 0.0.0.0',
      ],
      [
        ['--state-dir', ws.path('nope')],
        { GBATCH_UI_TOKENS: 'a-long-enough-token' },
        `gbatch ui: --state-dir ${ws.path('nope')}: no such journal or folder (a job's journal is made by its first run)`,
      ],
      [
        [],
        { GBATCH_UI_TOKENS: 'alice:short-token' },
        'gbatch ui: GBATCH_UI_TOKENS: a token of 11 character(s) is too short to be a secret: use 16 or more (e.g. `openssl rand -hex 16`)',
      ],
      [
        [],
        { GBATCH_UI_TOKENS_FILE: ws.path('missing') },
        `gbatch ui: GBATCH_UI_TOKENS_FILE: ${ws.path('missing')}: cannot read tokens file: no such file or directory (ENOENT)`,
      ],
    ];
    for (const [args, env, line] of cases) {
      const result = await runCli(['ui', '--port', '0', ...args], { env, cwd: ws.dir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim()).toBe(line);
      expect(result.stdout).toBe('');
    }
  });

  it('a port in use: exit 1, one line that says so', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const ws = workspace('gbatch-ui-config-');
      const result = await runCli(['ui', '--no-auth', '--port', String(port), '--state-dir', ws.dir]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`gbatch ui: cannot start: port ${port} is already in use (try --port 0)`);
    } finally {
      taken.close();
    }
  });
});
