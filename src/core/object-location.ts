// `--out s3://bucket/prefix`: where outputs go on S3-compatible object storage. Keys are the prefix and the
// same safe names as on disk (src/core/paths.ts), so nothing derived from an item id leaves the prefix.
// Credentials come from the AWS_* variables and files only: a location that carries any is refused.
import { ConfigError } from './config-error.js';

export interface ObjectLocation {
  bucket: string;
  /** '' or a prefix ending with '/'. */
  prefix: string;
}

const SCHEME = 's3://';
/** S3's bucket names, as S3-compatible stores take them: 3-63 of a-z 0-9 . -, a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const MAX_KEY_BYTES = 1024;

export function isObjectLocation(out: string): boolean {
  return out.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/** Parses `s3://bucket[/prefix]`; `what` names the flag or field in the refusal. */
export function parseObjectLocation(out: string, what = '--out'): ObjectLocation {
  const refuse = (reason: string): ConfigError => new ConfigError(`${what}: ${reason}`);
  if (!isObjectLocation(out)) throw refuse(`'${out}' is not an s3:// location`);
  const rest = out.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  // The text before '@' may be a secret: it is never echoed.
  if (authority.includes('@'))
    throw refuse('an s3:// location must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  if (!BUCKET.test(authority) || authority.includes('..'))
    throw refuse(`'${printableBucket(authority)}' is not a bucket name (3-63 characters of a-z, 0-9, '.', '-')`);
  if (/[?#]/.test(rest)) throw refuse('an s3:// location takes no query or fragment');
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  const parts = path.split('/').filter((part) => part !== '');
  if (parts.some((part) => part === '.' || part === '..')) throw refuse("an s3:// prefix must not hold '.' or '..'");
  if (/[\u0000-\u001f\u007f]/.test(path)) throw refuse('an s3:// prefix must not hold control characters');
  const prefix = parts.length === 0 ? '' : `${parts.join('/')}/`;
  if (Buffer.byteLength(prefix) > MAX_KEY_BYTES / 2) throw refuse('the s3:// prefix is too long');
  return { bucket: authority, prefix };
}

/** The key of `name` (a safe file name) under the location's prefix. */
export function objectKey(location: ObjectLocation, name: string): string {
  if (name === '' || name.includes('/') || name === '.' || name === '..')
    throw new Error(`refusing to write '${name}': not a plain name under the prefix`);
  return `${location.prefix}${name}`;
}

export function objectUri(location: ObjectLocation, key: string): string {
  return `${SCHEME}${location.bucket}/${key}`;
}

export function locationUri(location: ObjectLocation): string {
  return `${SCHEME}${location.bucket}/${location.prefix}`;
}

function printableBucket(text: string): string {
  return JSON.stringify(text.slice(0, 80)).slice(1, -1);
}

/** `--s3-endpoint` / AWS_ENDPOINT_URL: an http(s) origin (and path), never with credentials in it. */
export function parseEndpoint(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${what}: not a URL (give it as http://host:port or https://host)`);
  }
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(
      `${what}: the URL must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
    );
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${what}: the URL must be http:// or https://, not ${url.protocol}//`);
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`${what}: the URL takes no query or fragment`);
  return url.href.replace(/\/$/, '');
}
