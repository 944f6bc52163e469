// Who may read /metrics: a bearer token among GBATCH_METRICS_TOKENS (comma-separated). Without any
// token configured the endpoint is served on loopback only (metrics-server.ts refuses anything else).
import { bearerToken, isLoopbackHost, tokenList, tokenMatcher } from '../core/bearer-tokens.js';

export { isLoopbackHost };

export function parseTokens(value: string | undefined): string[] {
  return tokenList(value);
}

/** True when the Authorization header carries one of the tokens (compared in constant time, by digest). */
export function bearerAllowed(header: string | undefined, tokens: readonly string[]): boolean {
  const token = bearerToken(header);
  return token !== undefined && tokenMatcher(tokens)(token) !== undefined;
}
