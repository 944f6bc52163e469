import { describe, expect, it } from 'vitest';
import { gatewayAccess } from '../../src/job/job.js';
import { UsageError } from '../../src/job/options.js';

const KEY = 'sk-test-VERY-SECRET-0123456789';

function refusal(flags: { 'base-url'?: string }, env: NodeJS.ProcessEnv): string {
  try {
    gatewayAccess(flags, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    expect(message).not.toContain(KEY);
    expect(message).not.toContain('VERY-SECRET');
    return message;
  }
  throw new Error('expected a UsageError');
}

describe('gatewayAccess', () => {
  it('takes the base URL from the flag or the environment and the key from the environment only', () => {
    expect(gatewayAccess({}, { GATEWAY_BASE_URL: 'http://127.0.0.1:8080/v1', GATEWAY_API_KEY: KEY })).toEqual({
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: KEY,
    });
    expect(
      gatewayAccess(
        { 'base-url': 'https://gw.example/v1' },
        { GATEWAY_BASE_URL: 'http://127.0.0.1:1/v1', GATEWAY_API_KEY: KEY },
      ),
    ).toEqual({ baseUrl: 'https://gw.example/v1', apiKey: KEY });
  });

  it('removes trailing slashes', () => {
    expect(gatewayAccess({ 'base-url': 'http://127.0.0.1:8080/v1/' }, { GATEWAY_API_KEY: KEY }).baseUrl).toBe(
      'http://127.0.0.1:8080/v1',
    );
    expect(gatewayAccess({ 'base-url': 'http://127.0.0.1:8080/v1///' }, { GATEWAY_API_KEY: KEY }).baseUrl).toBe(
      'http://127.0.0.1:8080/v1',
    );
  });

  it('missing URL', () => {
    expect(refusal({}, { GATEWAY_API_KEY: KEY })).toMatch(/No gateway: set GATEWAY_BASE_URL or pass --base-url/);
    expect(refusal({}, { GATEWAY_BASE_URL: '', GATEWAY_API_KEY: KEY })).toMatch(/No gateway/);
  });

  it('missing key', () => {
    expect(refusal({ 'base-url': 'http://127.0.0.1:8080/v1' }, {})).toMatch(/No API key: set GATEWAY_API_KEY/);
    expect(refusal({ 'base-url': 'http://127.0.0.1:8080/v1' }, { GATEWAY_API_KEY: '' })).toMatch(/No API key/);
  });

  it('a URL that is not http(s), or not a URL', () => {
    expect(refusal({ 'base-url': 'ftp://127.0.0.1/v1' }, { GATEWAY_API_KEY: KEY })).toBe(
      'Expected the gateway base URL to be an http(s) URL, got `ftp://127.0.0.1/v1`',
    );
    expect(refusal({ 'base-url': '127.0.0.1:8080/v1' }, { GATEWAY_API_KEY: KEY })).toMatch(/http\(s\) URL/);
    expect(refusal({ 'base-url': 'not a url' }, { GATEWAY_API_KEY: KEY })).toBe(
      'Expected the gateway base URL to be an http(s) URL, got `not a url`',
    );
  });

  it('a URL carrying credentials is refused without echoing them', () => {
    expect(refusal({ 'base-url': `http://user:${KEY}@127.0.0.1:8080/v1` }, { GATEWAY_API_KEY: KEY })).toMatch(
      /must not carry credentials/,
    );
    expect(refusal({ 'base-url': `https://${KEY}@gw.example/v1` }, { GATEWAY_API_KEY: KEY })).toMatch(
      /must not carry credentials/,
    );
  });

  it('errors about the URL never mention the key, even when the key is missing too', () => {
    refusal({ 'base-url': 'gopher://x' }, { GATEWAY_API_KEY: KEY });
    refusal({}, { GATEWAY_API_KEY: KEY });
  });

  // Regression (fixed): src/job/job.ts gatewayAccess checks the protocol before the credentials and echoes the raw URL
  // ("got `ftp://user:sk-...@host`"), so a key pasted into a non-http URL ends up in the error message (and on
  // stderr). Fix: check url.username/url.password first, or echo the URL with its userinfo removed.
  it('a non-http URL with the key in it does not echo the key', () => {
    refusal({ 'base-url': `ftp://user:${KEY}@127.0.0.1/v1` }, { GATEWAY_API_KEY: KEY });
  });
});
