// Who may read a /metrics endpoint, wherever it is mounted (`run --metrics-port`, `serve`, a dashboard):
// a bearer token among those configured; with none configured, anyone who can reach it, which the
// listener keeps to loopback (openMetricsRefusal).
import { bearerAllowed, isLoopbackHost } from './metrics-tokens.js';

/** The challenge a refused scrape is answered with (401). */
export const METRICS_CHALLENGE = 'Bearer realm="gbatch metrics"';

/** Whether a scrape with this Authorization header may read: always, when no token is configured. */
export function metricsAllowed(authorization: string | undefined, tokens: readonly string[]): boolean {
  return tokens.length === 0 || bearerAllowed(authorization, tokens);
}

/** Why metrics may not be served on `host` without a token (undefined: they may). */
export function openMetricsRefusal(host: string, tokens: readonly string[], flag: string): string | undefined {
  return tokens.length === 0 && !isLoopbackHost(host)
    ? `${flag} ${host} is not loopback: set GBATCH_METRICS_TOKENS (comma-separated bearer tokens) to serve metrics beyond this machine`
    : undefined;
}

/**
 * The rule on a server that has clients of its own (`serve`, a dashboard): a scrape with one of the clients'
 * tokens or one of GBATCH_METRICS_TOKENS reads; with neither configured (`--no-auth`, loopback only) anyone does.
 * `isClient` is undefined when the server takes clients without a token.
 */
export function serverMetricsAllowed(
  authorization: string | undefined,
  metricsTokens: readonly string[],
  isClient: ((token: string) => boolean) | undefined,
): boolean {
  if (!isClient) return metricsAllowed(authorization, metricsTokens);
  const bearer = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (bearer !== undefined && isClient(bearer)) return true;
  return metricsTokens.length > 0 && metricsAllowed(authorization, metricsTokens);
}
