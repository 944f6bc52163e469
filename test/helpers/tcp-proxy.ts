// A loopback TCP proxy a test can cut: every connection through it is dropped and new ones are refused
// until it is restored. A server out of reach as its clients see it (a restart, a network cut), without
// touching the server itself, which other test files share.
import { createServer, connect, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  /** Connections refused while cut. */
  refused(): number;
  /** Resolves once `n` connections in all have been refused. */
  refusedReached(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** How what a client sends reaches the server (default: as it comes); the server's answers go straight back. */
  forward?: (client: Socket, upstream: Socket) => void;
}

export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  let refused = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((client) => {
    if (down) {
      refused++;
      client.destroy();
      for (const waiter of waiters.filter((w) => refused >= w.n)) waiter.resolve();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (options.forward) options.forward(client, upstream);
    else client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('tcp proxy: no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    refused: () => refused,
    refusedReached: (n) => (refused >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
