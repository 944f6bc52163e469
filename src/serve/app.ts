// The HTTP front: OpenAI's /v1/files and /v1/batches on Hono, each request authenticated by its bearer
// token (the token's hash owns what it creates), every error in OpenAI's envelope.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { HttpBindings } from '@hono/node-server';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { bearerToken } from '../core/bearer-tokens.js';
import { SignInThrottle } from '../core/sign-in-throttle.js';
import { hostGuard } from '../io/host-guard.js';
import { BatchesApi } from './batches-api.js';
import type { ServeContext } from './context.js';
import { fileListQuery } from './file-params.js';
import { FilesApi } from './files-api.js';
import { newRequestId } from './ids.js';
import { metricsHandler } from './metrics-route.js';
import { ApiFailure, apiError, type OpenAiError } from './openai-error.js';
import type { BatchScheduler } from './scheduler.js';
import { ANONYMOUS_OWNER, type ClientTokens } from './tokens.js';

type Env = { Bindings: HttpBindings; Variables: { owner: string; requestId: string } };

const MAX_JSON_BYTES = 1024 * 1024;

export function serveApp(
  ctx: ServeContext,
  scheduler: BatchScheduler,
  tokens: ClientTokens | undefined,
  names: { listenHost: string; allowedHosts: readonly string[] },
): Hono<Env> {
  const app = new Hono<Env>();

  // Every answer, refusals included, names itself as OpenAI's do: a client quotes it to the operator, who finds
  // it in the log of an internal error.
  app.use('*', async (c, next) => {
    const id = newRequestId();
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  });

  // A web page of another site, or one reached through a name that resolves here (DNS rebinding), is refused
  // before anything else: it could otherwise read files and start batches on the operator's account.
  app.use('*', sameSiteOnly(names));

  // Every body but an upload's (streamed to disk under --max-file-bytes) is bounded while it streams: a chunked
  // body without Content-Length is cut off at the limit, not read whole first.
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && c.req.path === '/v1/files') return next();
    return jsonLimit(c, next);
  });

  app.use('/v1/*', signedIn(ctx, tokens));
  fileRoutes(app, new FilesApi(ctx));
  batchRoutes(app, new BatchesApi(ctx, scheduler));
  app.get('/metrics', metricsHandler(ctx, tokens));

  app.notFound((c) => fail(c, apiError(404, `Unknown route ${c.req.method} ${c.req.path.slice(0, 200)}`)));
  app.onError((err, c) => {
    if (err instanceof ApiFailure) return fail(c, err.failure);
    ctx.log(`internal error on ${c.req.method} ${c.req.path.slice(0, 200)} (${c.get('requestId')}): ${err.message}`);
    return fail(c, apiError(500, 'The server failed to handle the request; its log says why.'));
  });
  return app;
}

function fail(c: Context<Env>, failure: OpenAiError): Response {
  return c.json(failure.body, failure.status as ContentfulStatusCode);
}

/** Refuses a cross-site request, or one addressed by a name this server was not given, in OpenAI's envelope. */
function sameSiteOnly(names: { listenHost: string; allowedHosts: readonly string[] }): ReturnType<typeof hostGuard> {
  return hostGuard({
    ...names,
    refuseCrossSite: true,
    refuse: (status, message) =>
      Response.json(
        apiError(status, message, { code: status === 421 ? 'misdirected_request' : 'cross_site_request' }).body,
        { status },
      ),
  });
}

/** The owner of the request: its bearer token's, or the anonymous one without --tokens; failed sign-ins throttled. */
function signedIn(ctx: ServeContext, tokens: ClientTokens | undefined): MiddlewareHandler<Env> {
  const throttle = new SignInThrottle(ctx.now);
  return async (c, next) => {
    if (!tokens) {
      c.set('owner', ANONYMOUS_OWNER);
      return next();
    }
    const address = c.env.incoming.socket.remoteAddress ?? 'unknown';
    const wait = throttle.retryAfterS(address);
    if (wait !== undefined) {
      c.header('Retry-After', String(wait));
      return fail(
        c,
        apiError(429, `Too many failed sign-ins from this address: try again in ${wait} s`, {
          code: 'too_many_failed_sign_ins',
        }),
      );
    }
    const bearer = bearerToken(c.req.header('authorization'));
    const owner = bearer === undefined ? undefined : tokens.ownerOf(bearer);
    if (owner === undefined) {
      ctx.log(throttle.failed(address));
      return fail(
        c,
        apiError(401, 'Incorrect API key provided: set the token this server was given.', { code: 'invalid_api_key' }),
      );
    }
    throttle.succeeded(address);
    c.set('owner', owner);
    return next();
  };
}

function fileRoutes(app: Hono<Env>, files: FilesApi): void {
  app.post('/v1/files', async (c) => c.json(await files.upload(c.get('owner'), c.env.incoming)));
  app.get('/v1/files', async (c) => c.json(await files.list(c.get('owner'), fileListQuery(c.req.query()))));
  app.get('/v1/files/:id', async (c) => c.json(await files.retrieve(c.get('owner'), c.req.param('id'))));
  app.get('/v1/files/:id/content', async (c) =>
    files.content(c.get('owner'), c.req.param('id'), c.req.header('range')),
  );
  app.delete('/v1/files/:id', async (c) => c.json(await files.remove(c.get('owner'), c.req.param('id'))));
}

function batchRoutes(app: Hono<Env>, batches: BatchesApi): void {
  app.post('/v1/batches', async (c) => c.json(await batches.create(c.get('owner'), await jsonBody(c))));
  app.get('/v1/batches', async (c) =>
    c.json(await batches.list(c.get('owner'), pageLimit(c.req.query('limit'), 100), c.req.query('after'))),
  );
  app.get('/v1/batches/:id', async (c) => c.json(await batches.retrieve(c.get('owner'), c.req.param('id'))));
  app.post('/v1/batches/:id/cancel', async (c) => c.json(await batches.cancel(c.get('owner'), c.req.param('id'))));
}

/** `limit` as OpenAI takes it: 1 to max, 20 when absent. */
function pageLimit(text: string | undefined, max: number): number {
  if (text === undefined) return 20;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new ApiFailure(apiError(400, `Expected limit to be an integer from 1 to ${max}`, { param: 'limit' }));
  return limit;
}

const jsonLimit = bodyLimit({
  maxSize: MAX_JSON_BYTES,
  onError: (c) => c.json(apiError(413, `The request body is larger than ${MAX_JSON_BYTES} bytes`).body, 413),
});

/** A JSON route's body: only `application/json` (a text/plain body is what a cross-site page may send unasked). */
async function jsonBody(c: Context<Env>): Promise<unknown> {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json')
    throw new ApiFailure(
      apiError(
        415,
        `Expected Content-Type: application/json, got ${type === undefined ? 'none' : `'${type.slice(0, 100)}'`}`,
      ),
    );
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiFailure(apiError(400, 'Expected a JSON body'));
  }
}
