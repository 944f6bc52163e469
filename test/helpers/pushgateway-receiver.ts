// A Pushgateway stand-in on loopback: keeps each request's method, path and body, answers 200 (as
// the Pushgateway does to a PUT), and closes when the test ends.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface PushReceiver {
  url: string;
  received: Array<{ method: string; path: string; contentType: string | undefined; body: string }>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const received: PushReceiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (d: string) => {
        body += d;
      })
      .on('end', () => {
        received.push({
          method: req.method ?? '',
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          body,
        });
        res.writeHead(200).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
