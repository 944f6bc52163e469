// The dashboard's HTTP front on Hono: the guards every request passes (host names, security headers, no
// caching, a size cap, no form from another site), then its sub-apps: metrics, sign-in, pages, live
// figures (server-sent events) and actions, the last three behind sign-in.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { SignInThrottle } from '../core/sign-in-throttle.js';
import { hostGuard } from '../io/host-guard.js';
import { LIVE_JS, UI_CSS } from './assets.js';
import type { UiContext } from './context.js';
import { actionsApp } from './routes/actions-app.js';
import { liveApp } from './routes/live-app.js';
import { outputsApp } from './routes/outputs-app.js';
import { pagesApp } from './routes/pages-app.js';
import { loginApp, logoutApp, signedIn } from './routes/sign-in-app.js';
import type { UiEnv } from './routes/ui-env.js';

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

/** `metrics` answers GET /metrics with a rule of its own: Prometheus sends a bearer token, never a session. */
export function uiApp(ctx: UiContext, metrics: Hono): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  guardEveryRequest(app, ctx);
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.route('/', metrics);
  app.get('/assets/ui.css', (c) => c.body(UI_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/live.js', (c) => c.body(LIVE_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  const throttle = new SignInThrottle(ctx.now);
  app.route('/', loginApp(ctx, throttle));
  // Every route below: signed in.
  app.use('*', signedIn(ctx, throttle));
  app.route('/', logoutApp(ctx));
  app.route('/', pagesApp(ctx));
  app.route('/', outputsApp(ctx));
  app.route('/', liveApp(ctx));
  app.route('/', actionsApp(ctx));
  app.onError((err, c) => {
    ctx.log(`${c.req.method} ${c.req.path}: ${err.message}`);
    return c.text('the dashboard could not read the journal for this page; see its log', 500);
  });
  return app;
}

function guardEveryRequest(app: Hono<UiEnv>, ctx: UiContext): void {
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
}

/**
 * A request another site's page made: the browser says so (Sec-Fetch-Site), or its Origin is not ours.
 * Not hono/csrf: that one refuses a request that carries neither header (curl or a script with a bearer
 * token, which no other site can make a browser send) and looks only at form bodies.
 */
function crossSite(c: Context<UiEnv>): boolean {
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
