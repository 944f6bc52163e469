// A web-standard fetch handler (a Hono app) served on Node's http server: listening before it returns
// (an address in use is thrown, for the caller to say), and closed at once, open connections included.
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** A web-standard fetch handler, as a Hono app's `fetch` is. */
export type FetchHandler = (request: Request, env: never) => Response | Promise<Response>;

export interface HttpListener {
  /** http://HOST:PORT, the address it listens on (a free port when 0 was asked). */
  origin: string;
  /** Stops taking connections and ends the open ones; resolves once the server is closed. */
  close(): Promise<void>;
}

export async function listenHttp(fetch: FetchHandler, host: string, port: number): Promise<HttpListener> {
  const server = createAdaptorServer({
    fetch: fetch as Parameters<typeof createAdaptorServer>[0]['fetch'],
    hostname: host,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${shown}:${address.port}`,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      return closed;
    },
  };
}

/** A server of gbatch's as its command holds it: where it answers, and how it stops. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** listenHttp; when the address cannot be taken, `release` closes what was opened for the server, then it throws. */
export async function listenOrRelease(
  fetch: FetchHandler,
  host: string,
  port: number,
  release: () => Promise<void>,
): Promise<HttpListener> {
  try {
    return await listenHttp(fetch, host, port);
  } catch (err) {
    await release();
    throw err;
  }
}
