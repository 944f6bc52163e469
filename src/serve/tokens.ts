// The clients' tokens: GBATCH_SERVE_TOKENS (comma-separated) or the file GBATCH_SERVE_TOKENS_FILE (one per
// line or comma-separated). A client is known by its token's hash: that is what owns its files and batches,
// so no token is ever stored.
import { tokenList, tokenMatcher } from '../core/bearer-tokens.js';
import { readBoundedText } from '../io/bounded-read.js';
import { UsageError } from '../job/options.js';

export const ANONYMOUS_OWNER = 'anonymous';

export interface ClientTokens {
  /** The owner a bearer token stands for, or undefined when it is none of the tokens. */
  ownerOf(token: string): string | undefined;
}

export function readTokens(env: NodeJS.ProcessEnv): string[] {
  const parts = tokenList(env.GBATCH_SERVE_TOKENS);
  if (env.GBATCH_SERVE_TOKENS_FILE) {
    let text: string;
    try {
      text = readBoundedText(env.GBATCH_SERVE_TOKENS_FILE, 'tokens file');
    } catch (err) {
      throw new UsageError(`GBATCH_SERVE_TOKENS_FILE: ${(err as Error).message}`);
    }
    parts.push(...tokenList(text, /[,\n\r]+/));
  }
  return parts;
}

export function clientTokens(tokens: readonly string[]): ClientTokens {
  return { ownerOf: tokenMatcher(tokens) };
}
