// How a PostgreSQL journal is named in messages: its URL without the password (nor the query string,
// which may carry one too), and the one error a connection that cannot be made turns into.
import { ConfigError, errnoOf } from '../../core/config-error.js';

/** "postgres://user:***@host:port/db": the URL with its password replaced by `***` and no query string. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = decodeURIComponent(parsed.username);
    const credentials = user ? `${user}${parsed.password ? ':***' : ''}@` : parsed.password ? ':***@' : '';
    return `${parsed.protocol}//${credentials}${parsed.host}${parsed.pathname}`;
  } catch {
    // Not a URL `new URL` reads: cut everything between the scheme and the last '@' down to the user.
    const text = url.replace(/\?.*$/s, '');
    const match = /^([a-z]+:\/\/)([^@/]*)@(.*)$/is.exec(text);
    if (!match) return text;
    const user = match[2]!.split(':')[0];
    return `${match[1]}${user}${match[2]!.includes(':') ? ':***' : ''}@${match[3]}`;
  }
}

/** The password a URL carries (to scrub it from driver messages, should one ever echo it). */
function passwordOf(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return /^[a-z]+:\/\/[^:@/]*:([^@]*)@/i.exec(url)?.[1];
  }
}

/** A driver message with the URL (and its password, anywhere) replaced by the redacted form. */
export function scrubMessage(message: string, url: string): string {
  let text = message.split(url).join(redactDatabaseUrl(url));
  const password = passwordOf(url);
  if (password) text = text.split(password).join('***');
  return text;
}

/** Why a connection failed, in a few words: the errno code, or the server's own message. */
function reasonOf(err: unknown, url: string): string {
  const code = errnoOf(err);
  if (code !== undefined) return code;
  const message = err instanceof Error ? err.message : String(err);
  return scrubMessage(message, url) || 'unknown error';
}

/** "postgres://u@h:5432/db: cannot connect (ECONNREFUSED)": a ConfigError (exit 2), never the password. */
export function connectionError(url: string, err: unknown): ConfigError {
  return new ConfigError(`${redactDatabaseUrl(url)}: cannot connect (${reasonOf(err, url)})`);
}

/** A ConfigError for a location that is not a PostgreSQL URL at all. */
export function badUrlError(url: string, why: string): ConfigError {
  return new ConfigError(`${redactDatabaseUrl(url)}: not a usable PostgreSQL URL (${why})`);
}
