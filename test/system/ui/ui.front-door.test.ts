// `gbatch ui` answers only requests that name it: a page on a name that resolves here (DNS rebinding) gets
// 421 for every page, metric and form, signed in or not; --allowed-host adds a name (a proxy's).
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startUiChild, UI_TOKEN } from '../../helpers/ui.js';
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

describe.skipIf(!BUILT)('gbatch ui: sign-in', () => {
  it('refuses an address after 10 failed sign-ins in a minute (429, Retry-After), by bearer or by the form', async () => {
    const ws = workspace('gbatch-ui-door-');
    mkdirSync(ws.path('state'));
    const ui = await startUiChild(['--state-dir', ws.path('state')]);
    try {
      const wrong = (i: number) => ({ authorization: `Bearer not-the-token-${i}`, accept: 'application/json' });
      for (let i = 0; i < 5; i++) expect((await rawRequest(ui.url, { headers: wrong(i) })).status).toBe(401);
      for (let i = 5; i < 10; i++) {
        const form = await rawRequest(`${ui.url}login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=not-the-token-${i}&next=%2F`,
        });
        expect(form.status).toBe(401);
      }
      const refused = await rawRequest(ui.url, { headers: { authorization: `bearer ${UI_TOKEN}` } });
      // Even the right token: the address waits out the minute. And a `next` with CR/LF is a bad request, no session.
      const injected = await rawRequest(`${ui.url}login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${UI_TOKEN}&next=%2F%0D%0ASet-Cookie%3A%20x%3D1`,
      });
      expect([injected.status, injected.headers['set-cookie']]).toEqual([400, undefined]);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const log = (await Promise.race([ui.stop().then(() => ui.cli.result), ui.cli.result])).stderr;
      expect(log).toContain('failed sign-in from 127.0.0.1 (10 of 10 within 60 s): refusing it until the window ends');
      expect(log).not.toContain('not-the-token');
    } finally {
      await ui.stop();
    }
  });
});
