// What a handler answers, as data; writeReply puts it on the wire. Keeping replies as values lets
// faults replace an answer after the work was done (an intermediary's 504, a dropped socket).

import type { ServerResponse } from 'node:http';

export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'html'; status: number; body: string }
  | { kind: 'sse'; frames: string[] }
  | { kind: 'video'; body: Buffer; truncate: boolean };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers ? { kind: 'json', status, body, headers } : { kind: 'json', status, body };
}

export function replyStatus(reply: Reply): number {
  return reply.kind === 'sse' || reply.kind === 'video' ? 200 : reply.status;
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  switch (reply.kind) {
    case 'json': {
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...reply.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
      return;
    }
    case 'html':
      res.writeHead(reply.status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(reply.body) });
      res.end(reply.body);
      return;
    case 'sse':
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      for (const frame of reply.frames) res.write(frame);
      res.end();
      return;
    case 'video': {
      const total = reply.body.length;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': total });
      if (!reply.truncate) {
        res.end(reply.body);
        return;
      }
      // Promise the whole file, send half, then cut the connection: a truncated download.
      res.write(reply.body.subarray(0, Math.floor(total / 2)), () => res.destroy());
      return;
    }
  }
}
