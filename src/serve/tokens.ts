// The clients' tokens: GBATCH_SERVE_TOKENS (comma-separated) or the file GBATCH_SERVE_TOKENS_FILE (one per
// line or comma-separated). A client is known by its token's hash: that is what owns its files and batches,
// so no token is ever stored.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readBoundedText } from '../io/bounded-read.js';
import { UsageError } from '../job/options.js';

export const ANONYMOUS_OWNER = 'anonymous';

export interface ClientTokens {
  /** The owner a bearer token stands for, or undefined when it is none of the tokens. */
  ownerOf(token: string): string | undefined;
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export function readTokens(env: NodeJS.ProcessEnv): string[] {
  const parts: string[] = [];
  if (env.GBATCH_SERVE_TOKENS) parts.push(...env.GBATCH_SERVE_TOKENS.split(','));
  if (env.GBATCH_SERVE_TOKENS_FILE) {
    let text: string;
    try {
      text = readBoundedText(env.GBATCH_SERVE_TOKENS_FILE, 'tokens file');
    } catch (err) {
      throw new UsageError(`GBATCH_SERVE_TOKENS_FILE: ${(err as Error).message}`);
    }
    parts.push(...text.split(/[,\n\r]+/));
  }
  return parts.map((t) => t.trim()).filter((t) => t !== '');
}

export function clientTokens(tokens: readonly string[]): ClientTokens {
  const digests = tokens.map(digest);
  return {
    ownerOf(token) {
      const given = digest(token);
      // Every token compared in constant time: the answer's timing says nothing of which came close.
      let found: Buffer | undefined;
      for (const known of digests) if (timingSafeEqual(known, given)) found = known;
      return found && found.toString('hex').slice(0, 32);
    },
  };
}
