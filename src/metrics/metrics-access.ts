// Who may read a /metrics endpoint, wherever it is mounted (`run --metrics-port`, `serve`, a dashboard):
// a bearer token among those configured; with none configured, anyone who can reach it, which the
// listener keeps to loopback (openMetricsRefusal).
import { bearerToken } from '../core/bearer-tokens.js';
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
  const bearer = bearerToken(authorization);
  if (bearer !== undefined && isClient(bearer)) return true;
  return metricsTokens.length > 0 && metricsAllowed(authorization, metricsTokens);
}

/** What one scrape may read on a server with clients: every job, one client's, or nothing (refused). */
export type MetricsScope = { all: true } | { owner: string } | 'refused';

/**
 * The rule of `serverMetricsAllowed`, narrowed for a server whose clients own their jobs (`serve`): a token
 * of GBATCH_METRICS_TOKENS (or no token at all where none is configured) reads every job; a client's token
 * reads only the jobs of the client it stands for (`ownerOf`), whose ids and money are nobody else's.
 */
export function serverMetricsScope(
  authorization: string | undefined,
  metricsTokens: readonly string[],
  ownerOf: ((token: string) => string | undefined) | undefined,
): MetricsScope {
  if (metricsTokens.length > 0 && bearerAllowed(authorization, metricsTokens)) return { all: true };
  if (!ownerOf) return metricsAllowed(authorization, metricsTokens) ? { all: true } : 'refused';
  const bearer = bearerToken(authorization);
  const owner = bearer === undefined ? undefined : ownerOf(bearer);
  return owner === undefined ? 'refused' : { owner };
}
