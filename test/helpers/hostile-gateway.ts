// A gateway that does the worst the spec allows. Plain node:http on loopback; it shares no code with
// src/ or the simulator (its own prices, token formula and ledger), so it cannot share their assumptions.
// Every route is a replaceable handler: a test overrides the one it needs and may delegate to DEFAULTS.
//
// Its ledger is the gateway's own record of what it billed: tests compare it with --budget and with
// what gbatch booked. Billing follows spec 8.3: a video is charged on its final resolution and
// total_tokens; a chat/responses answer is charged for its true usage whether or not the body says so.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer } from './test-server.js';

/** Spec 8.2, USD per 1e6 tokens, without / with a reference video. Only the models tests use. */
const VIDEO_RATES: Record<string, Record<string, { noref: number; ref: number }>> = {
  'video-pro': {
    '480p': { noref: 5.0735, ref: 3.0882 },
    '720p': { noref: 5.0735, ref: 3.0882 },
    '1080p': { noref: 5.625, ref: 3.4191 },
    '4k': { noref: 2.8676, ref: 1.7647 },
  },
  'video-mini': {
    '480p': { noref: 1.6912, ref: 1.0294 },
    '720p': { noref: 1.6912, ref: 1.0294 },
    '1080p': { noref: 1.875, ref: 1.1397 },
  },
  'video-fast': {
    '480p': { noref: 3.8088, ref: 2.2647 },
    '720p': { noref: 3.8088, ref: 2.2647 },
    '1080p': { noref: 4.3235, ref: 2.5221 },
  },
};
const CHAT_RATES: Record<string, { input: number; output: number }> = {
  'chat-small': { input: 0.15, output: 0.6 },
  'chat-large': { input: 2.5, output: 10 },
};
const FRAME: Record<string, [number, number]> = {
  '480p': [854, 480],
  '720p': [1280, 720],
  '1080p': [1920, 1080],
  '4k': [3840, 2160],
};

export interface HostileRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  bodyText: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  /** The bearer key presented. */
  key: string | undefined;
}

export interface Charge {
  kind: 'chat' | 'responses' | 'video';
  ref: string;
  usd: number;
  note: string;
}

/** new-api's quota unit: 500,000 quota = 1 USD. */
export const QUOTA_PER_USD = 500_000;

export interface HostileTask {
  id: string;
  model: string;
  prompt: string;
  resolution: string;
  seconds: number;
  hasReferenceVideo: boolean;
  polls: number;
  status: 'queued' | 'in_progress' | 'SUCCESS' | 'FAILURE';
  finalResolution?: string;
  totalTokens?: number;
  /** What the task was billed (USD), once it succeeded. */
  chargedUsd?: number;
  failReason?: string;
}

export type RouteName = 'models' | 'chat' | 'responses' | 'videoSubmit' | 'videoPoll' | 'videoContent';
export type Route = (req: HostileRequest, res: ServerResponse, gw: HostileGateway) => void | Promise<void>;

export interface HostileOptions {
  /** The one key the gateway accepts; anything else is 401. Default 'sk-hostile-KEY-0123456789'. */
  key?: string;
  routes?: Partial<Record<RouteName, Route>>;
  /** Polls a video task answers in progress before it ends. Default 1. */
  pollsUntilDone?: number;
  /** The resolution a task is delivered (and billed) at. Default: the requested one (720p when omitted). */
  finalResolution?: (task: HostileTask) => string;
  /** A fail reason ends the task in FAILURE (refunded). Default: every task succeeds. */
  failReason?: (task: HostileTask) => string | undefined;
  /** Bytes of the video served by the content endpoint. Default 4096. */
  videoBytes?: number;
  /** The account's group ratio, a multiplier on every charge that no pricing file is told of. Default 1. */
  groupRatio?: number;
  /** The poll answer of a finished task carries its charge as new-api's `data.quota` (500,000 = 1 USD). Default off. */
  reportCharge?: boolean;
  /** The seconds a video request without `duration` (or `seconds`) is generated and billed for. Default 5. */
  defaultSeconds?: number;
}

export interface HostileGateway {
  origin: string;
  baseUrl: string;
  key: string;
  options: HostileOptions;
  requests: HostileRequest[];
  charges: Charge[];
  tasks: Map<string, HostileTask>;
  /** What the gateway billed in all (settled charges). */
  billedUsd(): number;
  /** Requests to a route (submissions when `POST`). */
  count(method: string, pathPrefix: string): number;
  /** Resolves when the gateway has received `n` requests in total. */
  received(n: number): Promise<void>;
  /** Resolves once `holds(gateway)` is true: checked now and after each request. */
  reached(holds: (gw: HostileGateway) => boolean): Promise<void>;
  close(): Promise<void>;
}

export const HOSTILE_KEY = 'sk-hostile-KEY-0123456789';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function errorEnvelope(
  message: string,
  type = 'invalid_request_error',
  code: unknown = null,
): { error: Record<string, unknown> } {
  return { error: { message, type, param: null, code } };
}

/** The frame-count formula of the gateway's estimator, applied to the final resolution. */
export function hostileVideoTokens(resolution: string, seconds: number): number {
  const [w, h] = FRAME[resolution] ?? FRAME['720p']!;
  return Math.floor((w * h * (24 * seconds + 1)) / 1024);
}

export function hostileVideoUsd(model: string, resolution: string, hasRef: boolean, tokens: number): number {
  const rate = VIDEO_RATES[model]?.[resolution] ?? VIDEO_RATES[model]?.['720p'];
  if (!rate) throw new Error(`hostile gateway: no rate for ${model} ${resolution}`);
  return (tokens / 1e6) * (hasRef ? rate.ref : rate.noref);
}

/** What the worst honest gateway bills a chat call: every prompt byte a token, every allowed output token used. */
export function worstChatUsage(body: any): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const text = JSON.stringify(body?.messages ?? body?.input ?? '') + String(body?.instructions ?? '');
  const prompt = Buffer.byteLength(text, 'utf8');
  const completion =
    Number(body?.max_completion_tokens ?? body?.max_tokens ?? body?.max_output_tokens ?? 4096) * Number(body?.n ?? 1);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function chatUsd(model: string, usage: { prompt_tokens: number; completion_tokens: number }): number {
  const rate = CHAT_RATES[model];
  if (!rate) throw new Error(`hostile gateway: no rate for ${model}`);
  return (usage.prompt_tokens * rate.input + usage.completion_tokens * rate.output) / 1e6;
}

let nextId = 1;

export const DEFAULTS: Record<RouteName, Route> = {
  models: (_req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: [...Object.keys(VIDEO_RATES), ...Object.keys(CHAT_RATES)].map((id) => ({
        id,
        object: 'model',
        owned_by: 'hostile',
      })),
    }),
  chat: (req, res, gw) => {
    const usage = worstChatUsage(req.json);
    const id = `chatcmpl-${nextId++}`;
    gw.charges.push({ kind: 'chat', ref: id, usd: chatUsd(req.json.model, usage) * ratioOf(gw), note: 'true usage' });
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: 0,
      model: req.json.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage,
    });
  },
  responses: (req, res, gw) => {
    const usage = worstChatUsage(req.json);
    const id = `resp_${nextId++}`;
    gw.charges.push({
      kind: 'responses',
      ref: id,
      usd: chatUsd(req.json.model, usage) * ratioOf(gw),
      note: 'true usage',
    });
    sendJson(res, 200, {
      id,
      object: 'response',
      created_at: 0,
      status: 'completed',
      model: req.json.model,
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }],
      usage: {
        input_tokens: usage.prompt_tokens,
        output_tokens: usage.completion_tokens,
        total_tokens: usage.total_tokens,
      },
    });
  },
  videoSubmit: (req, res, gw) => {
    const body = req.json ?? {};
    if (typeof body.prompt !== 'string' || body.prompt.trim() === '') {
      sendJson(res, 400, { code: 'invalid_request', message: 'prompt is required' });
      return;
    }
    const id = `task_h${nextId++}`;
    const seconds = Number(body.duration ?? body.seconds ?? gw.options.defaultSeconds ?? 5);
    gw.tasks.set(id, {
      id,
      model: String(body.model),
      prompt: body.prompt,
      resolution: String(body.resolution ?? '720p').toLowerCase(),
      seconds,
      hasReferenceVideo: body.video_url !== undefined || body.videos !== undefined,
      polls: 0,
      status: 'queued',
    });
    sendJson(res, 200, { id, task_id: id, status: 'queued' });
  },
  videoPoll: (req, res, gw) => {
    const id = decodeURIComponent(req.path.split('/').pop() ?? '');
    const task = gw.tasks.get(id);
    if (!task) {
      sendJson(res, 404, { code: 'task_not_found', message: `task ${id} not found` });
      return;
    }
    advance(task, gw);
    sendJson(res, 200, { code: 'success', data: { ...taskView(task), ...chargeView(task, gw) } });
  },
  videoContent: (req, res, gw) => {
    const id = decodeURIComponent(req.path.split('/')[3] ?? '');
    const task = gw.tasks.get(id);
    if (!task || task.status !== 'SUCCESS') {
      sendJson(res, task ? 400 : 404, errorEnvelope(`task ${id} not ready`));
      return;
    }
    const bytes = videoBytes(gw.options.videoBytes ?? 4096);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
    res.end(bytes);
  },
};

/**
 * A video submission whose answer never comes (the connection is cut): `keep` says whether the gateway
 * created (and will bill) the task first, as a real one may. Other submissions go to `next`.
 */
export function dropSubmission(
  drop: (req: HostileRequest) => 'keep' | 'lose' | undefined,
  next: Route = DEFAULTS.videoSubmit,
): Route {
  return (req, res, gw) => {
    const fate = drop(req);
    if (fate === undefined) return next(req, res, gw);
    if (fate === 'keep')
      DEFAULTS.videoSubmit(req, { writeHead: () => undefined, end: () => undefined } as unknown as ServerResponse, gw);
    res.socket?.destroy();
    return undefined;
  };
}

/** What the gateway does with a task nobody polls: it runs to its end, and is billed (or refunded). */
export function finishTasks(gw: HostileGateway): void {
  for (const task of gw.tasks.values())
    while (task.status !== 'SUCCESS' && task.status !== 'FAILURE') advance(task, gw);
}

/** Moves a task on by one poll; on its end it is billed (SUCCESS) or refunded (FAILURE), once. */
export function advance(task: HostileTask, gw: HostileGateway): void {
  if (task.status === 'SUCCESS' || task.status === 'FAILURE') return;
  task.polls++;
  if (task.polls <= (gw.options.pollsUntilDone ?? 1)) {
    task.status = 'in_progress';
    return;
  }
  const reason = gw.options.failReason?.(task);
  if (reason !== undefined) {
    task.status = 'FAILURE';
    task.failReason = reason;
    return;
  }
  task.status = 'SUCCESS';
  task.finalResolution = gw.options.finalResolution?.(task) ?? task.resolution;
  task.totalTokens = hostileVideoTokens(task.finalResolution, task.seconds + (task.hasReferenceVideo ? 5 : 0));
  const usd = hostileVideoUsd(task.model, task.finalResolution, task.hasReferenceVideo, task.totalTokens) * ratioOf(gw);
  // A gateway that reports quota bills in whole quota units (rounded up): its ledger is what it reports.
  task.chargedUsd = gw.options.reportCharge ? Math.ceil(usd * QUOTA_PER_USD) / QUOTA_PER_USD : usd;
  gw.charges.push({ kind: 'video', ref: task.id, usd: task.chargedUsd, note: `final ${task.finalResolution}` });
}

function ratioOf(gw: HostileGateway): number {
  return gw.options.groupRatio ?? 1;
}

/** With `reportCharge`: a finished task's charge as new-api reports it, in quota units. */
export function chargeView(task: HostileTask, gw: HostileGateway): Record<string, unknown> {
  if (!gw.options.reportCharge || task.chargedUsd === undefined) return {};
  return { quota: Math.round(task.chargedUsd * QUOTA_PER_USD) };
}

/** Shape A (spec 2.11). */
export function taskView(task: HostileTask): Record<string, unknown> {
  return {
    task_id: task.id,
    status: task.status === 'queued' ? 'QUEUED' : task.status === 'in_progress' ? 'IN_PROGRESS' : task.status,
    progress: task.status === 'SUCCESS' ? '100%' : '50%',
    ...(task.status === 'SUCCESS'
      ? { data: { status: 'completed', usage: { total_tokens: task.totalTokens }, resolution: task.finalResolution } }
      : {}),
    ...(task.failReason !== undefined ? { fail_reason: task.failReason } : {}),
  };
}

/** A small buffer that passes for an MP4 (an ftyp box first). */
export function videoBytes(size: number): Buffer {
  const bytes = Buffer.alloc(Math.max(size, 32), 0x61);
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisom', 4, 'latin1');
  return bytes;
}

function routeOf(method: string, path: string): RouteName | undefined {
  if (method === 'GET' && path === '/v1/models') return 'models';
  if (method === 'POST' && path === '/v1/chat/completions') return 'chat';
  if (method === 'POST' && path === '/v1/responses') return 'responses';
  if (method === 'POST' && path === '/v1/video/generations') return 'videoSubmit';
  if (method === 'GET' && /^\/v1\/video\/generations\/[^/]+$/.test(path)) return 'videoPoll';
  if (method === 'GET' && /^\/v1\/videos\/[^/]+\/content$/.test(path)) return 'videoContent';
  return undefined;
}

export async function startHostileGateway(options: HostileOptions = {}): Promise<HostileGateway> {
  const key = options.key ?? HOSTILE_KEY;
  // The server's handler closes over the gateway object, which needs the server: assigned once, below.
  // eslint-disable-next-line prefer-const
  let gw!: HostileGateway;
  // The HTTP plumbing (bodies read whole, sockets closed with the server) is the tests' own test server.
  const server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let json: any;
    try {
      json = req.bodyText === '' ? undefined : JSON.parse(req.bodyText);
    } catch {
      json = undefined;
    }
    const auth = req.headers.authorization;
    const presented = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const request: HostileRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      bodyText: req.bodyText,
      json,
      key: presented,
    };
    gw.requests.push(request);
    const name = routeOf(request.method, path);
    if (!name) return sendJson(res, 404, errorEnvelope(`no route ${request.method} ${path}`));
    if (presented !== key) return sendJson(res, 401, errorEnvelope('invalid api key', 'authentication_error'));
    return (options.routes?.[name] ?? DEFAULTS[name])(request, res, gw);
  });
  gw = {
    origin: server.origin,
    baseUrl: server.baseUrl,
    key,
    options,
    requests: [],
    charges: [],
    tasks: new Map(),
    billedUsd: () => gw.charges.reduce((sum, c) => sum + c.usd, 0),
    count: (method, prefix) => gw.requests.filter((r) => r.method === method && r.path.startsWith(prefix)).length,
    received: server.received,
    reached: (holds) => server.reached(() => holds(gw)),
    close: server.close,
  };
  return gw;
}
