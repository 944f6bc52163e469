// `gbatch ui` answers only requests that name it: a page on a name that resolves here (DNS rebinding) gets
// 421 for every page, metric and form, signed in or not; --allowed-host adds a name (a proxy's).
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startUiChild } from '../../helpers/ui.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('gbatch ui: the front door', () => {
  it('--no-auth on loopback: its own address and --allowed-host names only (421 otherwise)', async () => {
    const ws = workspace('gbatch-ui-door-');
    mkdirSync(ws.path('state'));
    const ui = await startUiChild(
      ['--state-dir', ws.path('state'), '--no-auth', '--allowed-host', 'dash.internal:8443'],
      {
        env: { GBATCH_UI_TOKENS: '' },
      },
    );
    try {
      const { port } = new URL(ui.url);
      expect((await rawRequest(ui.url)).status).toBe(200);
      expect((await rawRequest(ui.url, { headers: { host: `localhost:${port}` } })).status).toBe(200);
      expect((await rawRequest(ui.url, { headers: { host: 'dash.internal:8443' } })).status).toBe(200);
      for (const path of ['', 'metrics', 'login'])
        expect((await rawRequest(`${ui.url}${path}`, { headers: { host: `evil.example:${port}` } })).status, path).toBe(
          421,
        );
      const form = await rawRequest(`${ui.url}jobs/x/cancel`, {
        method: 'POST',
        headers: {
          host: `evil.example:${port}`,
          origin: `http://evil.example:${port}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'csrf=x',
      });
      expect(form.status).toBe(421);
    } finally {
      await ui.stop();
    }
  });

  it('refuses an --allowed-host that is no host name (exit 2, one line)', async () => {
    const ws = workspace('gbatch-ui-door-');
    const result = await runCli(['ui', '--port', '0', '--no-auth', '--allowed-host', 'a b'], { cwd: ws.dir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "gbatch ui: --allowed-host 'a b': expected a host name or address, optionally with :port",
    );
  });
});
