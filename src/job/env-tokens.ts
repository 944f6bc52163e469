// A list of tokens from the environment: NAME (comma-separated) and the file NAME_FILE names (one per line
// or comma-separated), as GBATCH_SERVE_TOKENS and GBATCH_UI_TOKENS are given.
import { tokenList } from '../core/bearer-tokens.js';
import { readBoundedText } from '../io/bounded-read.js';
import { UsageError } from './options.js';

export function envTokens(env: NodeJS.ProcessEnv, name: string): string[] {
  const entries = tokenList(env[name]);
  const file = env[`${name}_FILE`];
  if (file) {
    let text: string;
    try {
      text = readBoundedText(file, 'tokens file');
    } catch (err) {
      throw new UsageError(`${name}_FILE: ${(err as Error).message}`);
    }
    entries.push(...tokenList(text, /[,\n\r]+/));
  }
  return entries;
}
