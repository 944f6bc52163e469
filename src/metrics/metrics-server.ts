// `gbatch run --metrics-port N`: GET /metrics in the Prometheus text format for as long as the run
// lives. Behind a bearer token from GBATCH_METRICS_TOKENS; with none configured, loopback only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../job/options.js';
import { METRICS_CHALLENGE, metricsAllowed, openMetricsRefusal } from './metrics-access.js';

export interface MetricsServerOptions {
  host: string;
  /** 0: a free port. */
  port: number;
  tokens: readonly string[];
  /** The registry's text and its content type. */
  read: () => Promise<{ text: string; contentType: string }>;
}

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  // A host that is not loopback needs a token: metrics name the job and its money.
  const refusal = openMetricsRefusal(options.host, options.tokens, '--metrics-host');
  if (refusal !== undefined) throw new UsageError(refusal);
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, 'not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(response, 405, 'method not allowed\n');
    if (!metricsAllowed(request.headers.authorization, options.tokens)) {
      response.setHeader('WWW-Authenticate', METRICS_CHALLENGE);
      return answer(response, 401, 'unauthorized\n');
    }
    options.read().then(
      ({ text, contentType }) => {
        response.writeHead(200, {
          'Content-Type': contentType,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => answer(response, 500, 'metrics unavailable\n'),
    );
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new UsageError(`--metrics-port ${options.port} on ${options.host}: cannot listen (${err.code ?? err.message})`),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  server.unref();
  const { address, port } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${shown}:${port}/metrics`, close: () => closeServer(server) };
}

function answer(response: import('node:http').ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
