// The dashboard's tokens: GBATCH_UI_TOKENS (comma-separated) or the file GBATCH_UI_TOKENS_FILE (one per
// line or comma-separated). A user is known by their token's name, a digest prefix: no token is stored.
import { tokenList } from '../core/bearer-tokens.js';
import { readBoundedText } from '../io/bounded-read.js';
import { UsageError } from '../job/options.js';

export function readUiTokens(env: NodeJS.ProcessEnv): string[] {
  const tokens = tokenList(env.GBATCH_UI_TOKENS);
  if (env.GBATCH_UI_TOKENS_FILE) {
    let text: string;
    try {
      text = readBoundedText(env.GBATCH_UI_TOKENS_FILE, 'tokens file');
    } catch (err) {
      throw new UsageError(`GBATCH_UI_TOKENS_FILE: ${(err as Error).message}`);
    }
    tokens.push(...tokenList(text, /[,\n\r]+/));
  }
  return tokens;
}
