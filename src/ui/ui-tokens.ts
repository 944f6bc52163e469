// The dashboard's tokens: GBATCH_UI_TOKENS (comma-separated) or the file GBATCH_UI_TOKENS_FILE (one per
// line or comma-separated). An entry `name:token` names its user (what the page and the event log say);
// a bare token is known by a digest prefix. No token is ever stored or shown.
import { createHash } from 'node:crypto';
import { tokenMatcher } from '../core/bearer-tokens.js';
import { envTokens } from '../job/env-tokens.js';

export interface UiToken {
  name: string | undefined;
  token: string;
}

const NAMED = /^([A-Za-z0-9._-]{1,64}):(.+)$/;

export function readUiTokens(env: NodeJS.ProcessEnv): UiToken[] {
  return envTokens(env, 'GBATCH_UI_TOKENS').map((entry) => {
    const named = NAMED.exec(entry);
    return named ? { name: named[1]!, token: named[2]! } : { name: undefined, token: entry };
  });
}

/** Who a presented token is: its entry's name, else its digest prefix; undefined when it is none of them. */
export function uiTokenNamer(tokens: readonly UiToken[]): (token: string) => string | undefined {
  const match = tokenMatcher(tokens.map((t) => t.token));
  const names = new Map(
    tokens.map((t) => [createHash('sha256').update(t.token, 'utf8').digest('hex').slice(0, 32), t.name] as const),
  );
  return (token) => {
    const digest = match(token);
    return digest && (names.get(digest) ?? digest);
  };
}
