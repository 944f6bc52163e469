// The HTTP front of the simulator: one pipeline for every request. Order: latency, route, auth, rate
// limit, JSON, injected faults, handler; the ledger records each request once with how it ended.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { admitRequest, type Account } from './accounts.js';
import type { HandlerTable, SimContext } from './context.js';
import {
  gatewayFailure,
  generalError,
  intermediaryPage,
  notFound,
  rateLimited,
  taskError,
  unauthorized,
} from './errors.js';
import { faultsView, faultUpdate, isLoopbackAddress } from './admin.js';
import { latencyOf, rollDrop, rollInjectedError } from './faults.js';
import { json, replyStatus, writeReply, type Reply } from './reply.js';
import { matchRoute } from './routes.js';

const ADMIN_PREFIX = '/__sim/';
const NO_BODY = Symbol('no body');

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NO_BODY;
  }
}

function serveAdmin(ctx: SimContext, req: IncomingMessage, path: string, text: string | undefined): Reply {
  const method = req.method ?? 'GET';
  if (method === 'GET' && path === '/__sim/ledger') return json(ctx.ledger.toJSON());
  if (path !== '/__sim/faults' || !ctx.options.admin) return notFound('Admin path');
  if (!isLoopbackAddress(req.socket.remoteAddress))
    return generalError(403, 'The admin endpoint answers loopback only', 'invalid_request_error');
  if (!ctx.accounts.authenticate(req.headers.authorization)) return unauthorized();
  if (method === 'GET') return json({ faults: faultsView(ctx.faults()) });
  if (method !== 'POST') return generalError(405, 'Use GET or POST on /__sim/faults', 'invalid_request_error');
  const body = text === undefined ? NO_BODY : parseJson(text);
  const update = faultUpdate(body === NO_BODY ? undefined : body);
  if (typeof update === 'string') return generalError(400, update, 'invalid_request_error');
  try {
    ctx.updateFaults(update);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return generalError(400, err.message.replace(/^startSimulator: /, ''), 'invalid_request_error');
  }
  const faults = faultsView(ctx.faults());
  ctx.log(`faults changed by ${req.method} /__sim/faults: ${JSON.stringify(faults)}`);
  return json({ faults });
}

async function serve(
  ctx: SimContext,
  handlers: HandlerTable,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const at = ctx.clock.now();
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const text = method === 'POST' ? await readBody(req) : undefined;
  if (path.startsWith(ADMIN_PREFIX)) return writeReply(res, serveAdmin(ctx, req, path, text));

  const faults = ctx.faults();
  const latency = latencyOf(faults, ctx.random);
  if (latency > 0) {
    await (ctx.clock.sleep
      ? ctx.clock.sleep(latency, ctx.closing)
      : delay(latency, undefined, { signal: ctx.closing }));
    if (res.destroyed) return;
  }
  const parsed = text === undefined ? NO_BODY : parseJson(text);
  const account: Account | undefined = ctx.accounts.authenticate(req.headers.authorization);
  const finish = (reply: Reply | undefined): void => {
    ctx.ledger.recordRequest({
      at,
      account: account?.name ?? null,
      method,
      path,
      status: reply === undefined ? null : replyStatus(reply),
      ...(parsed !== NO_BODY ? { body: parsed } : {}),
      outcome: reply === undefined ? 'dropped' : 'answered',
    });
    if (reply === undefined) req.socket.destroy();
    else writeReply(res, reply);
  };

  const route = matchRoute(method, path);
  if (!route) return finish(notFound(`${method} ${path}`));
  if (!account) return finish(unauthorized());
  const retryAfter = admitRequest(account, ctx.clock.now());
  if (retryAfter > 0) return finish(rateLimited(retryAfter));
  const taskEnvelope = route.endpoint === 'submit' || route.endpoint === 'poll';
  if (text !== undefined && parsed === NO_BODY) {
    const message = 'The request body is not valid JSON';
    return finish(
      taskEnvelope
        ? taskError(400, 'invalid_json', message)
        : generalError(400, message, 'invalid_request_error', null, 'invalid_json'),
    );
  }

  const injected = rollInjectedError(faults, route.endpoint, ctx.random);
  if (injected?.flavor === 'envelope') return finish(gatewayFailure(injected.status, taskEnvelope));
  const drop = injected === undefined && rollDrop(faults, route.endpoint, ctx.random);

  let reply: Reply;
  try {
    reply = handlers[route.endpoint](ctx, {
      account,
      body: parsed === NO_BODY ? undefined : parsed,
      taskId: route.taskId,
    });
  } catch (err) {
    process.stderr.write(`gbatch sim: internal error on ${method} ${path}: ${(err as Error).stack ?? String(err)}\n`);
    reply = generalError(500, 'Internal error of the simulator', 'gateway_api_error', null, 'internal_error');
  }
  // The work is done either way: the socket is cut, or a proxy in front answers in its place.
  if (drop) return finish(undefined);
  finish(injected ? intermediaryPage(injected.status) : reply);
}

export function createSimServer(ctx: SimContext, handlers: HandlerTable): Server {
  return createServer((req, res) => {
    serve(ctx, handlers, req, res).catch(() => {
      // The client went away while its body was read, or the simulator is closing.
      res.destroy();
    });
  });
}
