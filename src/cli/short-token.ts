// A server's sign-in token must be a secret worth its name: one under 16 characters is refused before the
// server starts (exit 2), naming its length, never the token.
import { MIN_TOKEN_LENGTH, shortToken } from '../core/sign-in-throttle.js';
import { UsageError } from '../job/options.js';

export function refuseShortToken(tokens: readonly string[], variable: string): void {
  const short = shortToken(tokens);
  if (short === undefined) return;
  throw new UsageError(
    `${variable}: a token of ${short.length} character(s) is too short to be a secret: use ${MIN_TOKEN_LENGTH} or more (e.g. \`openssl rand -hex 16\`)`,
  );
}
