// A purpose-built HTTP server on 127.0.0.1 for one test: records every request, answers with a handler.

import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage & { bodyText: string }, res: ServerResponse, index: number) => unknown;

export interface TestServer {
  origin: string;
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves when the server has received `count` requests in total. */
  received(count: number): Promise<void>;
  /** Resolves once `holds()` is true: checked now and after each request has reached its handler. */
  reached(holds: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const watchers = new Set<() => void>();
  const reached = (holds: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!holds()) return;
        watchers.delete(check);
        resolve();
      };
      watchers.add(check);
      check();
    });
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = requests.length;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      // After the handler's synchronous start: a wrapper that records the request in its handler is seen too.
      queueMicrotask(() => {
        for (const check of [...watchers]) check();
      });
      void Promise.resolve(handler(Object.assign(req, { bodyText: body }), res, index)).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    received: (count) => reached(() => requests.length >= count),
    reached,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A port on 127.0.0.1 that nothing listens on (a server bound it, then went away). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
