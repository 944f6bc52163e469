// `gbatch ui` over real journals written by real runs against the simulator: sign-in (bearer and form),
// the jobs list and a job's page stating the figures of `report --format json`, the row browser, and the
// actions: refused read-only, cross-site or without the form token; done otherwise, each recorded in the
// journal's event log with who did it.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openQueries } from '../../../src/journal/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, launchSim } from '../../helpers/sim.js';
import { createWorkspace } from '../../helpers/workspace.js';
import {
  bearer,
  csrfOf,
  jobRowFigures,
  pageFigures,
  reportValue,
  sessionCookie,
  startUiChild,
  UI_TOKEN_B,
  type UiChild,
} from '../../helpers/ui.js';
import type { Simulator } from '../../../src/sim/index.js';
import { parseExposition } from '../../helpers/prometheus-text.js';

const OK_ROWS = 55;
const tokenName = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 32);

describe.skipIf(!BUILT)('gbatch ui over SQLite journals', () => {
  const ws = createWorkspace('gbatch-ui-');
  const state = ws.path('state');
  let sim: Simulator;
  let ui: UiChild;
  let readOnly: UiChild;
  const report = async (job: string) =>
    stdoutJson(await runCli(['report', '--state', ws.path('state', `${job}.db`), '--format', 'json'])) as Record<
      string,
      unknown
    >;

  beforeAll(async () => {
    // chat-large is not the account's (rejected, 403); every video task fails upstream.
    sim = await launchSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      faults: { failRate: 1 },
      taskSeconds: 0.1,
    });
    const env = gatewayEnv(sim.baseUrl, KEY);
    writeJsonl(ws.path('alpha.jsonl'), [
      ...Array.from({ length: OK_ROWS }, (_, i) => chatRow(`ok-${String(i).padStart(2, '0')}`, `question ${i}`)),
      ...Array.from({ length: 3 }, (_, i) => chatRow(`no-${i}`, `forbidden ${i}`, { model: 'chat-large' })),
      ...Array.from({ length: 4 }, (_, i) => videoRow(`clip-${i}`, `clouds ${i}`)),
    ]);
    const run = (manifest: string) =>
      runCli(['run', manifest, '--budget', '5', '--poll-interval', '0.05', '--retry-failed', '0', '--quiet'], {
        cwd: ws.dir,
        env,
      });
    expect((await run('alpha.jsonl')).code).toBe(1);
    // Every answer dropped after it was accepted: the outcome is unknown, the rows uncertain.
    sim.faults.failRate = 0;
    sim.faults.acceptThenDropRate = 1;
    writeJsonl(ws.path('gamma.jsonl'), [chatRow('u-0', 'lost 0'), chatRow('u-1', 'lost 1')]);
    expect((await run('gamma.jsonl')).code).toBe(4);
    writeJsonl(ws.path('delta.jsonl'), [chatRow('d-0', 'lost 0'), chatRow('d-1', 'lost 1'), chatRow('d-2', 'lost 2')]);
    expect((await run('delta.jsonl')).code).toBe(4);
    sim.faults.acceptThenDropRate = 0;
    [ui, readOnly] = await Promise.all([
      startUiChild(['--state-dir', state, '--allow-actions', '--refresh-interval', '0.05']),
      startUiChild(['--state-dir', state]),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([ui?.stop(), readOnly?.stop()]);
    await sim?.close();
    ws.remove();
  });

  test('no token or a wrong one sees nothing: a page asks to sign in, anything else is 401', async () => {
    const page = await fetch(ui.url, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2F');
    for (const headers of [{}, bearer('tok-wrong'), { authorization: 'Basic eDp5' }]) {
      const res = await fetch(`${ui.url}jobs/alpha`, { headers });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('alpha');
    }
    const wrong = await fetch(`${ui.url}login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'tok-wrong', next: '/' }),
      redirect: 'manual',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  test('the jobs list and a job page state the figures of report --format json', async () => {
    const res = await fetch(ui.url, { headers: bearer() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const list = await res.text();
    for (const job of ['alpha', 'gamma']) {
      const json = await report(job);
      const totals = json.totals as Record<string, number | null>;
      const row = jobRowFigures(list, job);
      for (const field of ['actual_usd', 'reserved_usd', 'estimated_usd', 'delta_usd', 'budget_usd'] as const)
        expect(Number(row[field]), `${job} ${field}`).toBe(totals[field]);
      expect(Number(row.items)).toBe(totals.items);
    }
    expect(jobRowFigures(list, 'alpha').standing).toBe('finished');
    expect(jobRowFigures(list, 'gamma').standing).toBe('needs-operator');

    const json = await report('alpha');
    const page = await (await fetch(`${ui.url}jobs/alpha`, { headers: bearer() })).text();
    const figures = pageFigures(page);
    expect(figures.length).toBeGreaterThan(15);
    for (const [path, value] of figures) expect(value, JSON.stringify(path)).toEqual(reportValue(json, path));
    // The problems, by cause, with the commands that act on them, pasteable.
    const named = `--state ${ws.path('state', 'alpha.db')}`;
    expect(page).toContain(`<code class="cmd">gbatch retry ${named} clip-0 clip-1 clip-2 clip-3</code>`);
    expect(page).toContain(`<code class="cmd">gbatch retry ${named} no-0 no-1 no-2</code>`);
  });

  test('GET /metrics: behind a user token or a metrics token; every job, equal to report --format json', async () => {
    expect((await fetch(`${ui.url}metrics`)).status).toBe(401);
    expect((await fetch(`${ui.url}metrics`, { headers: bearer('tok-wrong') })).status).toBe(401);
    const res = await fetch(`${ui.url}metrics`, { headers: bearer() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = parseExposition(await res.text());
    for (const job of ['alpha', 'gamma']) {
      const json = await report(job);
      const totals = json.totals as Record<string, number | null>;
      const label = { job_name: job };
      expect(metrics.sum('gbatch_rows', label), job).toBe(totals.items);
      for (const [state, rows] of Object.entries((json.totals as { by_state: Record<string, number> }).by_state))
        expect(metrics.sum('gbatch_rows', { ...label, state }), `${job} ${state}`).toBe(rows);
      expect(metrics.value('gbatch_spend_usd', label)).toBe(totals.actual_usd);
      expect(metrics.value('gbatch_reserved_usd', label)).toBe(totals.reserved_usd);
      expect(metrics.value('gbatch_budget_usd', label)).toBe(totals.budget_usd);
    }
    const withMetricsToken = await startUiChild(['--state-dir', state], { env: { GBATCH_METRICS_TOKENS: 'tok-prom' } });
    try {
      expect((await fetch(`${withMetricsToken.url}metrics`, { headers: bearer('tok-prom') })).status).toBe(200);
      // A metrics token reads /metrics only: no page.
      expect((await fetch(`${withMetricsToken.url}jobs/alpha`, { headers: bearer('tok-prom') })).status).toBe(401);
    } finally {
      await withMetricsToken.stop();
    }
  });

  test('the row browser filters by state, model, error code and id, and pages in manifest order', async () => {
    const rows = async (query: string) => {
      const html = await (await fetch(`${ui.url}jobs/alpha/rows?${query}`, { headers: bearer() })).text();
      return { html, ids: [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!) };
    };
    expect((await rows('state=rejected')).ids).toEqual(['no-0', 'no-1', 'no-2']);
    expect((await rows('state=failed&kind=video')).ids).toEqual(['clip-0', 'clip-1', 'clip-2', 'clip-3']);
    expect((await rows('model=chat-large')).ids).toEqual(['no-0', 'no-1', 'no-2']);
    expect((await rows('id=ok-1')).ids).toEqual(Array.from({ length: 10 }, (_, i) => `ok-1${i}`));
    const codes = statesById(ws.path('state', 'alpha.db'));
    expect(codes['no-0']).toBe('rejected');
    const first = await rows('');
    expect(first.ids).toHaveLength(50);
    const next = /rel="next" href="([^"]+)"/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    const second = await (await fetch(new URL(next, ui.url), { headers: bearer() })).text();
    const rest = [...second.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
    expect([...first.ids, ...rest]).toHaveLength(OK_ROWS + 7);
    expect(new Set([...first.ids, ...rest]).size).toBe(OK_ROWS + 7);
    // A row's page: its facts and its history of events.
    const row = await (await fetch(`${ui.url}jobs/alpha/rows/no-0`, { headers: bearer() })).text();
    expect(row).toMatch(/<td>submit<\/td>[\s\S]*<td>reject<\/td>/);
    expect((await fetch(`${ui.url}jobs/alpha/rows/nope`, { headers: bearer() })).status).toBe(404);
    expect((await fetch(`${ui.url}jobs/nope`, { headers: bearer() })).status).toBe(404);
  });

  test('read-only: no action, even confirmed with a valid form token', async () => {
    const before = statesById(ws.path('state', 'gamma.db'));
    const confirm = await fetch(`${readOnly.url}jobs/gamma/confirm/abandon-uncertain`, { headers: bearer() });
    expect(confirm.status).toBe(403);
    const post = await fetch(`${readOnly.url}jobs/gamma/actions/abandon-uncertain`, {
      method: 'POST',
      headers: bearer(),
      body: new URLSearchParams({ confirm: 'yes' }),
    });
    expect(post.status).toBe(403);
    expect(statesById(ws.path('state', 'gamma.db'))).toEqual(before);
  });

  test('signed in by the form: a cross-site post or one without the form token is refused; a confirmed one acts', async () => {
    const login = await fetch(`${ui.url}login`, {
      method: 'POST',
      body: new URLSearchParams({ token: UI_TOKEN_B, next: '/jobs/alpha' }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/jobs/alpha');
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect(login.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    const cookie = sessionCookie(login);
    const confirm = await fetch(`${ui.url}jobs/alpha/confirm/retry-failed`, { headers: { cookie } });
    expect(confirm.status).toBe(200);
    const csrf = csrfOf(await confirm.text());
    const post = (headers: Record<string, string>, fields: Record<string, string>) =>
      fetch(`${ui.url}jobs/alpha/actions/retry-failed`, {
        method: 'POST',
        headers: { cookie, ...headers },
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
    const host = new URL(ui.url).host;
    expect((await post({ origin: 'https://evil.example' }, { csrf, confirm: 'yes' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site' }, { csrf, confirm: 'yes' })).status).toBe(403);
    expect((await post({}, { confirm: 'yes' })).status).toBe(403);
    expect((await post({}, { csrf: `${csrf}x`, confirm: 'yes' })).status).toBe(403);
    expect(statesById(ws.path('state', 'alpha.db'))['clip-0']).toBe('failed');

    const done = await post({ origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }, { csrf, confirm: 'yes' });
    expect(done.status).toBe(303);
    const flash = new URL(done.headers.get('location')!, ui.url);
    expect(flash.pathname).toBe('/jobs/alpha');
    const states = statesById(ws.path('state', 'alpha.db'));
    for (let i = 0; i < 4; i++) expect(states[`clip-${i}`]).toBe('pending');
    expect(states['no-0']).toBe('rejected');
    const journal = await openQueries(ws.path('state', 'alpha.db'), { job: 'alpha' });
    try {
      const requeue = (await journal.events('clip-0')).at(-1)!;
      expect(requeue).toMatchObject({ event: 'requeue', from: 'failed', to: 'pending' });
      expect(requeue.detail).toMatchObject({ by: 'operator', via: 'ui', who: tokenName(UI_TOKEN_B) });
    } finally {
      await journal.close();
    }
    const page = await (await fetch(flash, { headers: { cookie } })).text();
    expect(page).toContain('4 row(s) pending again');

    const out = await fetch(`${ui.url}logout`, {
      method: 'POST',
      headers: { cookie },
      body: new URLSearchParams({ csrf }),
      redirect: 'manual',
    });
    expect(out.status).toBe(303);
    expect((await fetch(`${ui.url}jobs/alpha`, { headers: { cookie } })).status).toBe(401);
  });

  test('by bearer token: resolve the uncertain rows and cancel a job; the CLI sees each, with who did it', async () => {
    const act = (job: string, action: string, fields: Record<string, string> = {}) =>
      fetch(`${ui.url}jobs/${job}/actions/${action}`, {
        method: 'POST',
        headers: bearer(),
        body: new URLSearchParams({ confirm: 'yes', ...fields }),
      });
    const unconfirmed = await fetch(`${ui.url}jobs/gamma/actions/abandon-uncertain`, {
      method: 'POST',
      headers: bearer(),
    });
    expect(unconfirmed.status).toBe(400);
    const resolved = await act('gamma', 'abandon-uncertain');
    expect(resolved.status).toBe(200);
    expect(await resolved.json()).toEqual({ ok: true, message: '2 uncertain row(s) abandoned (now failed)' });
    expect(statesById(ws.path('state', 'gamma.db'))).toEqual({ 'u-0': 'failed', 'u-1': 'failed' });
    const status = stdoutJson(await runCli(['status', '--state', ws.path('state', 'gamma.db'), '--json']));
    expect(status.counts).toMatchObject({ failed: 2, uncertain: 0 });

    // A row already moved: the decision is refused in one line, nothing changes.
    const again = await act('gamma', 'resubmit-row', { id: 'u-0' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toBe(
      "refused: item 'u-0' is failed, not uncertain: only uncertain items are resubmitted",
    );

    const cancelled = await act('alpha', 'cancel', { reason: 'enough for tonight' });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { message: string }).message).toBe(
      'job cancelled: 4 pending and 0 deferred row(s) are now cancelled',
    );
    const journal = await openQueries(ws.path('state', 'alpha.db'), { job: 'alpha' });
    try {
      expect(await journal.jobCancel()).toMatchObject({ reason: 'enough for tonight' });
      expect((await journal.events('clip-3')).at(-1)).toMatchObject({
        event: 'cancel',
        detail: { by: 'operator', via: 'ui', who: 'alice', reason: 'enough for tonight' },
      });
    } finally {
      await journal.close();
    }
    const list = await (await fetch(ui.url, { headers: bearer() })).text();
    expect(jobRowFigures(list, 'alpha').standing).toBe('cancelled');
  });

  test('every other action: each row it moves gets its event, with who did it; a refusal changes nothing', async () => {
    const act = async (job: string, action: string, fields: Record<string, string> = {}) => {
      const res = await fetch(`${ui.url}jobs/${job}/actions/${action}`, {
        method: 'POST',
        headers: bearer(UI_TOKEN_B),
        body: new URLSearchParams({ confirm: 'yes', ...fields }),
      });
      return { status: res.status, ...((await res.json()) as { ok: boolean; message: string }) };
    };
    const lastEvent = async (job: string, id: string) => {
      const journal = await openQueries(ws.path('state', `${job}.db`), { job });
      try {
        const item = await journal.get(id);
        return { state: item!.state, reserved: item!.reservedUsd, event: (await journal.events(id)).at(-1)! };
      } finally {
        await journal.close();
      }
    };
    const who = { by: 'operator', via: 'ui', who: tokenName(UI_TOKEN_B) };

    // One uncertain row sent again, one abandoned as not billed, then the rest sent again in bulk.
    expect(await act('delta', 'resubmit-row', { id: 'd-0' })).toMatchObject({ status: 200, ok: true });
    expect(await lastEvent('delta', 'd-0')).toMatchObject({
      state: 'pending',
      event: { event: 'resubmit', detail: who },
    });
    expect(await act('delta', 'abandon-row', { id: 'd-1', not_billed: '1' })).toMatchObject({ ok: true });
    expect(await lastEvent('delta', 'd-1')).toMatchObject({
      state: 'failed',
      reserved: 0,
      event: { event: 'abandon', detail: { ...who, notBilled: true } },
    });
    expect(await act('delta', 'resubmit-uncertain')).toMatchObject({
      ok: true,
      message: '1 uncertain row(s) will be sent again by the next run',
    });
    expect(await lastEvent('delta', 'd-2')).toMatchObject({
      state: 'pending',
      event: { event: 'resubmit', detail: { ...who, bulk: true } },
    });

    // A row abandoned while uncertain is never retried: refused in one line, nothing changed.
    const refused = await act('delta', 'retry-row', { id: 'd-1' });
    expect(refused).toMatchObject({ status: 409, ok: false });
    expect(refused.message).toMatch(/^refused: .*d-1.*uncertain/);
    expect((await lastEvent('delta', 'd-1')).state).toBe('failed');

    // The rejected rows of alpha, then its cancelled ones (lifting the job's cancellation).
    expect(await act('alpha', 'retry-rejected')).toMatchObject({ ok: true });
    expect(await lastEvent('alpha', 'no-2')).toMatchObject({
      state: 'pending',
      event: { event: 'requeue', detail: who },
    });
    const cancelled = await act('alpha', 'retry-cancelled');
    expect(cancelled).toMatchObject({ ok: true });
    expect(cancelled.message).toContain("the job's cancellation is lifted");
    expect(await lastEvent('alpha', 'clip-0')).toMatchObject({ state: 'pending', event: { detail: who } });
    const journal = await openQueries(ws.path('state', 'alpha.db'), { job: 'alpha' });
    try {
      expect(await journal.jobCancel()).toBeUndefined();
    } finally {
      await journal.close();
    }
    expect(await act('alpha', 'retry-row', { id: 'ok-00' })).toMatchObject({ status: 409, ok: false });
  });
});
