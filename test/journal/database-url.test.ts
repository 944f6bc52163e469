// A database URL's password stays out of every printed form, whatever the URL's shape: characters a URL
// parser splits on ('/', '?', '#', '@'), bad percent-encoding, an empty user, a query that carries one.
import { describe, expect, it } from 'vitest';
import { printableLocation } from '../../src/journal/database-url.js';
import {
  badUrlError,
  connectionError,
  pasteableDatabaseUrl,
  redactDatabaseUrl,
  scrubMessage,
} from '../../src/journal/postgres/database-url.js';

/** Each password's pieces are distinctive: none may appear, whole or split where a parser would split it. */
const PASSWORDS = [
  'Pw1x/Pw2y',
  'Pw1x#Pw2y',
  'Pw1x?Pw2y',
  'Pw1x@Pw2y',
  'Pw1x%Pw2y',
  'Pw1x%zzPw2y',
  '1234#Pw2y',
  '5432?Pw2y',
  'Pw1x/?#@%Pw2y',
];
const PIECES = ['Pw1x', 'Pw2y', '1234', '5432?'];

function expectNoPassword(text: string): void {
  for (const piece of PIECES) expect(text, text).not.toContain(piece);
}

describe('redactDatabaseUrl', () => {
  for (const password of PASSWORDS) {
    for (const user of ['gb', '']) {
      const url = `postgres://${user}:${password}@db.example:6543/jobs?sslmode=require`;
      it(`never shows the password of ${JSON.stringify(url)}`, () => {
        const shown = redactDatabaseUrl(url);
        expectNoPassword(shown);
        expectNoPassword(printableLocation(url));
        expectNoPassword(pasteableDatabaseUrl(url));
        expectNoPassword(badUrlError(url, 'Invalid URL').message);
        expectNoPassword(connectionError(url, Object.assign(new Error('x'), { code: 'ENOTFOUND' })).message);
        expect(shown.startsWith('postgres://')).toBe(true);
      });
    }
  }

  it('keeps user, host, port and path of a URL whose credentials hold no "/", "?" or "#"', () => {
    expect(redactDatabaseUrl('postgres://gb:Pw1x@Pw2y@db.example:6543/jobs?password=Pw1x')).toBe(
      'postgres://gb:***@db.example:6543/jobs',
    );
    expect(redactDatabaseUrl('postgres://gb:Pw1x%zz@h/db')).toBe('postgres://gb:***@h/db');
    expect(redactDatabaseUrl('postgres://:Pw1x@h/db')).toBe('postgres://:***@h/db');
    expect(redactDatabaseUrl('postgres://me%40corp:Pw1x@h/db')).toBe('postgres://me%40corp:***@h/db');
    expect(redactDatabaseUrl('postgresql://postgres@127.0.0.1:5432/test')).toBe(
      'postgresql://postgres@127.0.0.1:5432/test',
    );
    expect(redactDatabaseUrl('postgres://h:5432/db#Pw1x')).toBe('postgres://h:5432/db');
  });

  it('shows only the scheme when a "/", "?" or "#" before the last "@" makes the host unknowable', () => {
    // A password holding '/', or a query holding an '@': the same text, so neither side is shown.
    expect(redactDatabaseUrl('postgres://gb:Pw1x/Pw2y@h/db')).toBe('postgres://***');
    expect(redactDatabaseUrl('postgres://h/db?password=Pw1x@Pw2y')).toBe('postgres://***');
    expect(redactDatabaseUrl('postgres://gb:1234#Pw2y@h/db')).toBe('postgres://***');
  });

  it('a refusal of an ambiguous URL says what to do', () => {
    expect(badUrlError('postgres://gb:Pw1x/Pw2y@h/db', 'Invalid URL').message).toBe(
      "postgres://***: not a usable PostgreSQL URL (Invalid URL; percent-encode any '/', '?', '#' or '@' in the user name and password)",
    );
  });

  it('scrubs the password, as written and decoded, from a driver message', () => {
    const url = 'postgres://gb:Pw1x%2FPw2y@h/db';
    expect(scrubMessage(`auth failed for ${url} with Pw1x/Pw2y and Pw1x%2FPw2y`, url)).toBe(
      'auth failed for postgres://gb:***@h/db with *** and ***',
    );
    const ambiguous = 'postgres://gb:Pw1x/Pw2y@h/db';
    expectNoPassword(scrubMessage('password Pw1x/Pw2y rejected', ambiguous));
  });
});

describe('pasteableDatabaseUrl: the URL a command to paste names', () => {
  it('keeps how to connect (sslmode, options, application_name, a socket host) and drops every password', () => {
    expect(
      pasteableDatabaseUrl(
        'postgres://gb:Pw1x@db.example:6543/jobs?sslmode=require&password=Pw2y&options=-c%20search_path%3Dnight&application_name=gbatch#frag',
      ),
    ).toBe(
      'postgres://gb@db.example:6543/jobs?sslmode=require&options=-c%20search_path%3Dnight&application_name=gbatch',
    );
    expect(pasteableDatabaseUrl('postgresql:///jobs?host=%2Fvar%2Frun%2Fpostgresql&sslpassword=Pw1x')).toBe(
      'postgresql:///jobs?host=%2Fvar%2Frun%2Fpostgresql',
    );
    expect(pasteableDatabaseUrl('postgres://postgres@127.0.0.1:5432/test')).toBe(
      'postgres://postgres@127.0.0.1:5432/test',
    );
  });

  it('an ambiguous URL is redacted as it is everywhere', () => {
    expect(pasteableDatabaseUrl('postgres://gb:Pw1x/Pw2y@h/db?sslmode=require')).toBe('postgres://***');
  });
});
