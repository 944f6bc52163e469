// Who may read /metrics: a bearer token among GBATCH_METRICS_TOKENS (comma-separated). Without any
// token configured the endpoint is served on loopback only (metrics-server.ts refuses anything else).
import { createHash, timingSafeEqual } from 'node:crypto';

export function parseTokens(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

/** True when the Authorization header carries one of the tokens (compared in constant time, by digest). */
export function bearerAllowed(header: string | undefined, tokens: readonly string[]): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  if (!match) return false;
  const given = digest(match[1]!);
  let allowed = false;
  for (const token of tokens) if (timingSafeEqual(given, digest(token))) allowed = true;
  return allowed;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether a host name or address stays on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
