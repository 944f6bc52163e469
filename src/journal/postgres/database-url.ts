// How a PostgreSQL journal is named in messages: its URL without the password (nor the query string,
// which may carry one too), and the one error a connection that cannot be made turns into.
import { ConfigError, errnoOf } from '../../core/config-error.js';

/**
 * A URL's text split where a password cannot escape, whatever its shape (the URL parser is not trusted:
 * given `u:12#ab@h` it reads host `u`, port 12, and the password's tail as a fragment). The credentials
 * run from after `//` to the last '@' of the whole text. When a '/', '?' or '#' comes before that '@',
 * nothing tells a password holding them from a path or query holding an '@' (`h/db?password=a@b`):
 * the URL is `ambiguous`, and only its scheme may be shown.
 */
interface UrlText {
  scheme: string;
  /** The user name as written; undefined when there are no credentials or the URL is ambiguous. */
  user?: string;
  /** Everything between `user:` and the last '@' (the whole credentials when ambiguous). */
  secret?: string;
  /** Host, port and path as written, without query or fragment. */
  place: string;
  ambiguous: boolean;
}

function splitUrlText(url: string): UrlText | undefined {
  const match = /^([a-z][a-z0-9+.-]*:)?\/\/(.*)$/is.exec(url);
  if (!match) return undefined;
  const scheme = match[1] ?? '';
  const body = match[2]!;
  const at = body.lastIndexOf('@');
  const place = (text: string): string => text.replace(/[?#].*$/s, '');
  if (at < 0) return { scheme, place: place(body), ambiguous: false };
  const credentials = body.slice(0, at);
  if (/[/?#]/.test(credentials)) return { scheme, secret: credentials, place: '', ambiguous: true };
  const colon = credentials.indexOf(':');
  const user = colon < 0 ? credentials : credentials.slice(0, colon);
  const password = colon < 0 ? '' : credentials.slice(colon + 1);
  return {
    scheme,
    user,
    ...(password ? { secret: password } : {}),
    place: place(body.slice(at + 1)),
    ambiguous: false,
  };
}

/**
 * "postgres://user:***@host:port/db": the URL with its password replaced by `***` and no query string;
 * "postgres://***" when the URL is ambiguous (see splitUrlText); "scheme:***" when it has no `//`.
 */
export function redactDatabaseUrl(url: string): string {
  const text = splitUrlText(url);
  if (text === undefined) return url.replace(/:.*$/s, ':***');
  if (text.ambiguous) return `${text.scheme}//***`;
  if (text.user === undefined) return `${text.scheme}//${text.place}`;
  return `${text.scheme}//${text.user}${text.secret !== undefined ? ':***' : ''}@${text.place}`;
}

/** The query parameters a pasted command keeps: none of them holds a secret (a password never goes). */
const PASTED_PARAMETERS: ReadonlySet<string> = new Set([
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'uselibpqcompat',
  'options',
  'application_name',
  'fallback_application_name',
  'host',
  'port',
  'dbname',
  'user',
  'connect_timeout',
  'target_session_attrs',
  'client_encoding',
  'keepalives',
  'keepalives_idle',
  'gssencmode',
  'channel_binding',
]);

/**
 * The URL a command to paste names the journal by: its user, host, port and database, and the query parameters that
 * say how to connect (sslmode, options, application_name, a socket's host...), but no password, neither in its
 * credentials nor in its query: the driver takes it from PGPASSWORD or ~/.pgpass. An ambiguous URL is redacted.
 */
export function pasteableDatabaseUrl(url: string): string {
  const text = splitUrlText(url);
  if (text === undefined || text.ambiguous) return redactDatabaseUrl(url);
  const query = /\?([^#]*)/s.exec(url.slice(url.lastIndexOf('@') + 1))?.[1] ?? '';
  const kept = query.split('&').filter((pair) => PASTED_PARAMETERS.has(decodedOr(pair.split('=')[0]!)));
  const who = text.user === undefined ? '' : `${text.user}@`;
  return `${text.scheme}//${who}${text.place}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

/** Why a URL that will not parse is ambiguous, in words an operator can act on; '' when it is not. */
function ambiguityHint(url: string): string {
  return splitUrlText(url)?.ambiguous ? "; percent-encode any '/', '?', '#' or '@' in the user name and password" : '';
}

/**
 * The password a URL carries, as written and decoded, longest first (to scrub it from driver messages,
 * should one ever echo it); for an ambiguous URL, its whole credentials and what follows their first ':'.
 */
function passwordsOf(url: string): string[] {
  const text = splitUrlText(url);
  if (!text?.secret) return [];
  const written = [text.secret];
  const colon = text.secret.indexOf(':');
  if (text.ambiguous && colon >= 0 && colon < text.secret.length - 1) written.push(text.secret.slice(colon + 1));
  const all = written.flatMap((secret) => [secret, decodedOr(secret)]);
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

function decodedOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // not valid percent-encoding: only the text as written can appear
  }
}

/** A driver message with the URL (and its password, anywhere) replaced by the redacted form. */
export function scrubMessage(message: string, url: string): string {
  let text = message.split(url).join(redactDatabaseUrl(url));
  for (const password of passwordsOf(url)) text = text.split(password).join('***');
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
  return new ConfigError(`${redactDatabaseUrl(url)}: cannot connect (${reasonOf(err, url)}${ambiguityHint(url)})`);
}

/** A ConfigError for a location that is not a PostgreSQL URL at all. */
export function badUrlError(url: string, why: string): ConfigError {
  return new ConfigError(
    `${redactDatabaseUrl(url)}: not a usable PostgreSQL URL (${scrubMessage(why, url)}${ambiguityHint(url)})`,
  );
}
