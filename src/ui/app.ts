// The dashboard's HTTP front on Hono: sign-in (bearer token or the form), pages of jobs, a job, its rows
// and a row, a job's live figures (server-sent events), and the actions, each behind a confirmation and
// refused cross-site. Every response carries the security headers; nothing is cached.
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import { bearerToken } from '../core/bearer-tokens.js';
import { SignInThrottle } from '../core/sign-in-throttle.js';
import { hostGuard } from '../io/host-guard.js';
import type { JournalJob } from '../journal/index.js';
import { ACTIONS, liveRunRefusal, refusalOf } from './actions.js';
import { LIVE_JS, UI_CSS } from './assets.js';
import type { UiContext } from './context.js';
import { jobPage, jobSummary, type JobSummary } from './job-view.js';
import { LatestFrame } from './live-feeds.js';
import { confirmBody, loginBody } from './pages/forms-page.js';
import { jobBody } from './pages/job-page.js';
import { jobsBody, parseJobsQuery, selectJobs } from './pages/jobs-page.js';
import { page } from './pages/layout.js';
import { rowBody, rowsBody } from './pages/rows-page.js';
import { parseRowFilter, rowPage } from './row-query.js';
import { SESSION_COOKIE, SESSION_MS } from './sessions.js';
import type { Viewer } from './viewer.js';

type Env = { Bindings: HttpBindings; Variables: { viewer: Viewer } };

const MAX_FORM_BYTES = 16 * 1024;

const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

export function uiApp(ctx: UiContext, metrics: (c: Context) => Promise<Response>): Hono<Env> {
  const app = new Hono<Env>();
  // A page of another site reached through a name that resolves here (DNS rebinding) is refused first.
  app.use(
    '*',
    hostGuard({
      listenHost: ctx.listenHost,
      allowedHosts: ctx.allowedHosts,
      refuseCrossSite: false,
      refuse: (status, message) => new Response(message, { status, headers: { 'content-type': 'text/plain' } }),
    }),
  );
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: CSP,
      referrerPolicy: 'same-origin',
      crossOriginResourcePolicy: 'same-origin',
    }),
  );
  app.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  app.use('*', bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => c.text('request too large', 413) }));
  // A form posted from another site is refused before anything reads it, signed in or not.
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && crossSite(c))
      return c.text('cross-site request refused', 403);
    return next();
  });

  app.get('/favicon.ico', (c) => c.body(null, 204));
  // Prometheus sends a bearer token of its own (or of a user), never a session: its own rule, before sign-in.
  app.get('/metrics', (c) => metrics(c));
  app.get('/assets/ui.css', (c) => c.body(UI_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/live.js', (c) => c.body(LIVE_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));

  const signInPage = (next: string, failed: boolean): string =>
    page({ title: 'gbatch: sign in', viewer: SIGNED_OUT, actionsAllowed: ctx.allowActions }, loginBody(next, failed));
  app.get('/login', (c) => c.html(signInPage(nextPath(c.req.query('next')), false)));
  const throttle = new SignInThrottle(ctx.now);
  const addressOf = (c: Context<Env>): string => c.env.incoming.socket.remoteAddress ?? 'unknown';
  const tooMany = (c: Context<Env>): Response | undefined => {
    const wait = throttle.retryAfterS(addressOf(c));
    return wait === undefined
      ? undefined
      : c.text(`too many failed sign-ins from this address: try again in ${wait} s`, 429, {
          'Retry-After': String(wait),
        });
  };
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    // A control character in `next` would end up in the redirect's Location header: refused before any session.
    if (CONTROL.test(String(form.next ?? ''))) return c.text('bad request: `next` holds a control character', 400);
    const next = nextPath(String(form.next ?? '/'));
    if (!ctx.tokenName) return c.redirect(next, 303);
    const refused = tooMany(c);
    if (refused) return refused;
    const who = ctx.tokenName(String(form.token ?? ''));
    if (who === undefined) {
      ctx.log(throttle.failed(addressOf(c)));
      return c.html(signInPage(next, true), 401);
    }
    throttle.succeeded(addressOf(c));
    const { id } = ctx.sessions.open(who);
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: SESSION_MS / 1000 });
    return c.redirect(next, 303);
  });

  app.use('*', async (c, next) => {
    const presented = ctx.tokenName !== undefined && bearerOf(c) !== undefined;
    const refused = presented ? tooMany(c) : undefined;
    if (refused) return refused;
    const viewer = viewerOf(c, ctx);
    if (presented) {
      if (viewer) throttle.succeeded(addressOf(c));
      else ctx.log(throttle.failed(addressOf(c)));
    }
    if (!viewer) {
      const wantsPage = c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html');
      if (wantsPage) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      return c.text('sign in: a bearer token of GBATCH_UI_TOKENS, or the form at /login', 401, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    if (c.req.method === 'POST' && viewer.via !== 'bearer') {
      const form = await c.req.parseBody();
      if (!sameSecret(String(form.csrf ?? ''), viewer.csrf))
        return c.text('form token missing or wrong: reload the page', 403);
    }
    c.set('viewer', viewer);
    return next();
  });

  app.post('/logout', (c) => {
    ctx.sessions.close(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });

  app.get('/', async (c) => {
    const query = parseJobsQuery(new URL(c.req.url).searchParams);
    const jobs: JobSummary[] = [];
    const unreadable: string[] = [];
    for (const job of await ctx.directory.list()) {
      try {
        jobs.push(await jobSummary(job, await ctx.directory.queries(job)));
      } catch (err) {
        unreadable.push(`${job.key}: ${(err as Error).message}`);
      }
    }
    const body = jobsBody(jobs, selectJobs(jobs, query), query, unreadable);
    return c.html(page({ title: 'gbatch: jobs', viewer: c.get('viewer') }, body));
  });

  const withJob = async (c: Context<Env>): Promise<JournalJob | Response> =>
    (await ctx.directory.find(c.req.param('job') ?? '')) ??
    c.html(
      page(
        { title: 'gbatch: no such job', viewer: c.get('viewer') },
        '<h1>No such job</h1><p><a href="/">All jobs</a></p>',
      ),
      404,
    );

  app.get('/jobs/:job', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const view = await jobPage(job, await ctx.directory.queries(job));
    const flash = ctx.flashes.take(c.req.query('flash'));
    return c.html(
      page(
        { title: `gbatch: ${view.name}`, viewer: c.get('viewer'), flash, liveJob: job.key },
        jobBody(view, c.get('viewer')),
      ),
    );
  });

  app.get('/jobs/:job/live', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const outbox = new LatestFrame();
    const place = ctx.live.join(job, streamHolder(c), (frame) => outbox.put(frame));
    if (typeof place === 'string') return c.text(place, 429);
    return streamSSE(
      c,
      async (stream) => {
        try {
          // A client gone before this ran has aborted already: onAbort would never call back.
          const closed = new Promise<void>((resolve) => {
            stream.onAbort(resolve);
            if (stream.aborted || stream.closed) resolve();
          });
          outbox.attach((data) => stream.writeSSE({ event: 'figures', data }));
          await closed;
        } finally {
          place.leave();
        }
      },
      async (err) => ctx.log(`live figures of ${job.key}: ${err.message}`),
    );
  });

  app.get('/jobs/:job/rows', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const journal = await ctx.directory.queries(job);
    const filter = parseRowFilter(new URL(c.req.url).searchParams);
    const { rows, more } = await rowPage(journal, filter);
    const view = await jobSummary(job, journal);
    return c.html(
      page(
        { title: `gbatch: rows of ${view.name}`, viewer: c.get('viewer') },
        rowsBody(view, await journal.rowFacets(), filter, rows, more),
      ),
    );
  });

  app.get('/jobs/:job/rows/:id', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const journal = await ctx.directory.queries(job);
    const item = await journal.get(c.req.param('id'));
    if (!item)
      return c.html(page({ title: 'gbatch: no such row', viewer: c.get('viewer') }, '<h1>No such row</h1>'), 404);
    const view = await jobSummary(job, journal);
    const body = rowBody(view, item, await journal.events(item.id), c.get('viewer'));
    return c.html(
      page(
        { title: `gbatch: ${item.id}`, viewer: c.get('viewer'), flash: ctx.flashes.take(c.req.query('flash')) },
        body,
      ),
    );
  });

  app.get('/jobs/:job/confirm/:action', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const viewer = c.get('viewer');
    const action = ACTIONS[c.req.param('action')];
    if (!action) return c.text('no such action', 404);
    if (!viewer.canAct) return c.html(page({ title: 'gbatch: read-only', viewer }, READ_ONLY), 403);
    const view = await jobSummary(job, await ctx.directory.queries(job));
    if (view.frozen) return c.text(view.frozen, 409);
    const waits = liveRunRefusal(action, view.liveRunners);
    if (waits) return c.text(`not now: ${waits}`, 409);
    const id = action.row ? c.req.query('id') : undefined;
    return c.html(
      page(
        { title: `gbatch: ${action.title}`, viewer },
        confirmBody(job.key, view.name, c.req.param('action'), action, viewer, id),
      ),
    );
  });

  app.post('/jobs/:job/actions/:action', async (c) => {
    const job = await withJob(c);
    if (job instanceof Response) return job;
    const viewer = c.get('viewer');
    const name = c.req.param('action');
    const action = ACTIONS[name];
    if (!action) return c.text('no such action', 404);
    if (!viewer.canAct) return c.html(page({ title: 'gbatch: read-only', viewer }, READ_ONLY), 403);
    const form = await c.req.parseBody();
    if (form.confirm !== 'yes') return c.text('not confirmed: post confirm=yes from the confirmation page', 400);
    const input = {
      id: action.row ? String(form.id ?? '') : undefined,
      reason:
        typeof form.reason === 'string'
          ? form.reason
              .replace(/[\u0000-\u001f\u007f]+/g, ' ')
              .trim()
              .slice(0, 500)
          : undefined,
      notBilled: form.not_billed === '1',
    };
    const queries = await ctx.directory.queries(job);
    const summary = await jobSummary(job, queries);
    if (summary.frozen) return c.text(summary.frozen, 409);
    const waits = liveRunRefusal(action, summary.liveRunners);
    if (waits) return c.text(`not now: ${waits}`, 409);
    const arg = summary.journalArg;
    const operator = { by: 'operator' as const, via: 'ui' as const, who: viewer.who };
    let said: string;
    let bad = false;
    const journal = await ctx.directory.store(job);
    try {
      said = await action.run(journal, input, operator, arg);
      ctx.log(`${viewer.who}: ${name} on ${job.key}${input.id ? ` row ${input.id}` : ''}: ${said}`);
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal === undefined) throw err;
      said = `refused: ${refusal}`;
      bad = true;
    } finally {
      await journal.close();
    }
    const back = input.id
      ? `/jobs/${encodeURIComponent(job.key)}/rows/${encodeURIComponent(input.id)}`
      : `/jobs/${encodeURIComponent(job.key)}`;
    if (viewer.via === 'bearer') return c.json({ ok: !bad, message: said }, bad ? 409 : 200);
    return c.redirect(`${back}?flash=${ctx.flashes.keep({ text: said.slice(0, 600), bad })}`, 303);
  });

  app.onError((err, c) => {
    ctx.log(`${c.req.method} ${c.req.path}: ${err.message}`);
    return c.text('the dashboard could not read the journal for this page; see its log', 500);
  });
  return app;
}

const SIGNED_OUT: Viewer = { who: '', via: 'signed-out', csrf: '', canAct: false };
const READ_ONLY =
  '<h1>Read-only</h1><p>This dashboard was started without <code>--allow-actions</code>: nothing can be changed from it.</p>';

function viewerOf(c: Context<Env>, ctx: UiContext): Viewer | undefined {
  if (!ctx.tokenName) return { who: 'local', via: 'none', csrf: ctx.anonymousCsrf, canAct: ctx.allowActions };
  const bearer = bearerOf(c);
  if (bearer !== undefined) {
    const who = ctx.tokenName(bearer);
    return who === undefined ? undefined : { who, via: 'bearer', csrf: '', canAct: ctx.allowActions };
  }
  const session = ctx.sessions.find(getCookie(c, SESSION_COOKIE));
  return session && { who: session.who, via: 'session', csrf: session.csrf, canAct: ctx.allowActions };
}

/** Whom a live stream is counted against: the session, or the bearer token; no one without sign-in. */
function streamHolder(c: Context<Env>): string | undefined {
  const viewer = c.get('viewer');
  if (viewer.via === 'bearer') return `bearer:${viewer.who}`;
  if (viewer.via === 'session') return `session:${getCookie(c, SESSION_COOKIE) ?? ''}`;
  return undefined;
}

function bearerOf(c: Context<Env>): string | undefined {
  return bearerToken(c.req.header('authorization'));
}

/** A request another site's page made: the browser says so (Sec-Fetch-Site), or its Origin is not ours. */
function crossSite(c: Context<Env>): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== c.req.header('host');
  } catch {
    return true; // "null" or garbage: not a page of ours
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && b.length > 0 && timingSafeEqual(a, b);
}

/** Where to go after signing in: a path of this server only, never another site. */
const CONTROL = /[\u0000-\u001f\u007f]/;

function nextPath(next: string | undefined): string {
  return next && /^\/(?![/\\])/.test(next) && !CONTROL.test(next) ? next : '/';
}
