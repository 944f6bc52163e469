// Bearer tokens a server accepts (`serve`'s clients, `/metrics` scrapers): lists read from configuration,
// and the match of a presented token, by digest and in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The tokens of a configured list: split, trimmed, blanks dropped. */
export function tokenList(text: string | undefined, separator: string | RegExp = ','): string[] {
  return (text ?? '')
    .split(separator)
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Which of `tokens` a presented token is, as a stable name (a prefix of its digest, so no token is ever
 * stored), or undefined. Every token is compared: the answer's timing says nothing of which came close.
 */
export function tokenMatcher(tokens: readonly string[]): (token: string) => string | undefined {
  const digests = tokens.map(digest);
  return (token) => {
    const given = digest(token);
    let found: Buffer | undefined;
    for (const known of digests) if (timingSafeEqual(known, given)) found = known;
    return found && found.toString('hex').slice(0, 32);
  };
}

/** The token of an `Authorization: Bearer T` header (the scheme in any case), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

/** Whether a host name or address stays on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
