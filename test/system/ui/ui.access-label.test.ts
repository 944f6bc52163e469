// The bar of every dashboard page says how the viewer got in and whether they may act, true for each way
// the server is started: the sign-in page of a server with tokens and --allow-actions says so, not
// "no sign-in (loopback) · read-only".
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { createWorkspace } from '../../helpers/workspace.js';
import { bearer, startUiChild, type UiChild } from '../../helpers/ui.js';

const accessOf = (html: string): string => {
  const label = /<nav class="bar">.*?<span class="muted"[^>]*>([^<]*)</.exec(html)?.[1];
  if (label === undefined) throw new Error('no access label on the page');
  return label.replace(/&#39;/g, "'").replace(/&amp;/g, '&');
};

const pageAt = async (ui: UiChild, path: string, headers: Record<string, string> = {}): Promise<string> => {
  const res = await fetch(new URL(path, ui.url), { headers: { accept: 'text/html', ...headers } });
  expect(res.status).toBe(200);
  return res.text();
};

describe.skipIf(!BUILT)("the dashboard's access label", () => {
  const ws = createWorkspace('gbatch-ui-access-');
  let acting: UiChild;
  let readOnly: UiChild;
  let open: UiChild;

  beforeAll(async () => {
    const state = ws.path('state');
    mkdirSync(state);
    [acting, readOnly, open] = await Promise.all([
      startUiChild(['--state-dir', state, '--allow-actions']),
      startUiChild(['--state-dir', state]),
      startUiChild(['--state-dir', state, '--no-auth', '--allow-actions'], { env: { GBATCH_UI_TOKENS: undefined } }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([acting?.stop(), readOnly?.stop(), open?.stop()]);
    ws.remove();
  });

  test('the sign-in page of a server with tokens says a token is asked for, and whether it allows actions', async () => {
    expect(accessOf(await pageAt(acting, '/login'))).toBe('sign-in with a token · actions allowed once signed in');
    expect(accessOf(await pageAt(readOnly, '/login'))).toBe('sign-in with a token · read-only');
  });

  test('a signed-in viewer is named, with whether they may act', async () => {
    expect(accessOf(await pageAt(acting, '/', bearer()))).toBe('signed in as alice (token) · actions allowed');
    expect(accessOf(await pageAt(readOnly, '/', bearer()))).toBe('signed in as alice (token) · read-only');
  });

  test('a server without sign-in says so', async () => {
    expect(accessOf(await pageAt(open, '/'))).toBe('no sign-in (loopback) · actions allowed');
  });
});
