// Sign-in: the form (a session cookie) or a bearer token of GBATCH_UI_TOKENS, with failed attempts throttled
// per address; without tokens (--no-auth, loopback only) everyone is the local user.
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { bearerToken } from '../../core/bearer-tokens.js';
import type { SignInThrottle } from '../../core/sign-in-throttle.js';
import type { UiContext } from '../context.js';
import { loginBody } from '../pages/forms-page.js';
import { page } from '../pages/layout.js';
import { SESSION_COOKIE, SESSION_MS } from '../sessions.js';
import type { Viewer } from '../viewer.js';
import type { UiEnv } from './ui-env.js';

const SIGNED_OUT: Viewer = { who: '', via: 'signed-out', csrf: '', canAct: false };
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The sign-in page and its form: open to everyone. */
export function loginApp(ctx: UiContext, throttle: SignInThrottle): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  const signInPage = (next: string, failed: boolean): string =>
    page({ title: 'gbatch: sign in', viewer: SIGNED_OUT, actionsAllowed: ctx.allowActions }, loginBody(next, failed));
  app.get('/login', (c) => c.html(signInPage(nextPath(c.req.query('next')), false)));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    // A control character in `next` would end up in the redirect's Location header: refused before any session.
    if (CONTROL.test(String(form.next ?? ''))) return c.text('bad request: `next` holds a control character', 400);
    const next = nextPath(String(form.next ?? '/'));
    if (!ctx.tokenName) return c.redirect(next, 303);
    const refused = tooMany(c, throttle);
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
  return app;
}

/** Signing out: behind sign-in, as every route after it. */
export function logoutApp(ctx: UiContext): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  app.post('/logout', (c) => {
    ctx.sessions.close(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });
  return app;
}

/**
 * Every route after it: the viewer signed in (or the sign-in page, or 401 with a bearer challenge), and a
 * session's form post carrying its form token.
 */
export function signedIn(ctx: UiContext, throttle: SignInThrottle): MiddlewareHandler<UiEnv> {
  return async (c, next) => {
    const presented = ctx.tokenName !== undefined && bearerOf(c) !== undefined;
    const refused = presented ? tooMany(c, throttle) : undefined;
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
  };
}

function addressOf(c: Context<UiEnv>): string {
  return c.env.incoming.socket.remoteAddress ?? 'unknown';
}

function tooMany(c: Context<UiEnv>, throttle: SignInThrottle): Response | undefined {
  const wait = throttle.retryAfterS(addressOf(c));
  return wait === undefined
    ? undefined
    : c.text(`too many failed sign-ins from this address: try again in ${wait} s`, 429, {
        'Retry-After': String(wait),
      });
}

function viewerOf(c: Context<UiEnv>, ctx: UiContext): Viewer | undefined {
  if (!ctx.tokenName) return { who: 'local', via: 'none', csrf: ctx.anonymousCsrf, canAct: ctx.allowActions };
  const bearer = bearerOf(c);
  if (bearer !== undefined) {
    const who = ctx.tokenName(bearer);
    return who === undefined ? undefined : { who, via: 'bearer', csrf: '', canAct: ctx.allowActions };
  }
  const session = ctx.sessions.find(getCookie(c, SESSION_COOKIE));
  return session && { who: session.who, via: 'session', csrf: session.csrf, canAct: ctx.allowActions };
}

function bearerOf(c: Context<UiEnv>): string | undefined {
  return bearerToken(c.req.header('authorization'));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && b.length > 0 && timingSafeEqual(a, b);
}

/** Where to go after signing in: a path of this server only, never another site. */
function nextPath(next: string | undefined): string {
  return next && /^\/(?![/\\])/.test(next) && !CONTROL.test(next) ? next : '/';
}
