// A journal's location as it may be shown: a database URL without its password (like the API key, it
// stays out of every line, file and journal row); a file's path as it is.
import { isDatabaseUrl } from './open-store.js';
import { pasteableDatabaseUrl, redactDatabaseUrl } from './postgres/database-url.js';

export function printableLocation(location: string): string {
  return isDatabaseUrl(location) ? redactDatabaseUrl(location) : location;
}

/** A journal's location as a command to paste names it: a database URL with how to connect but no password. */
export function commandLocation(location: string): string {
  return isDatabaseUrl(location) ? pasteableDatabaseUrl(location) : location;
}
