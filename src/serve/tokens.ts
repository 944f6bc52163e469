// The clients' tokens: GBATCH_SERVE_TOKENS (comma-separated) or the file GBATCH_SERVE_TOKENS_FILE (one per
// line or comma-separated). A client is known by its token's hash: that is what owns its files and batches,
// so no token is ever stored.
import { tokenMatcher } from '../core/bearer-tokens.js';
import { envTokens } from '../job/env-tokens.js';

export const ANONYMOUS_OWNER = 'anonymous';

export interface ClientTokens {
  /** The owner a bearer token stands for, or undefined when it is none of the tokens. */
  ownerOf(token: string): string | undefined;
}

export function readTokens(env: NodeJS.ProcessEnv): string[] {
  return envTokens(env, 'GBATCH_SERVE_TOKENS');
}

export function clientTokens(tokens: readonly string[]): ClientTokens {
  return { ownerOf: tokenMatcher(tokens) };
}
