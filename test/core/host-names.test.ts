// Which Host and Origin name a server: its own address, localhost on loopback, IP literals on a wildcard
// address, and the names the operator allowed; never a name that merely resolves here.
import { describe, expect, it } from 'vitest';
import { hostAllowed, originAllowed, parseAuthority, type HostRule } from '../../src/core/host-names.js';

const on = (listenHost: string, allowedHosts: string[] = [], port = 8090): HostRule => ({
  listenHost,
  port,
  allowedHosts,
});

describe('hostAllowed', () => {
  it.each<[string, HostRule, string | undefined, boolean]>([
    ['its own address', on('127.0.0.1'), '127.0.0.1:8090', true],
    ['localhost beside a loopback address', on('127.0.0.1'), 'localhost:8090', true],
    ['LOCALHOST. in any case, with its dot', on('127.0.0.1'), 'LOCALHOST.:8090', true],
    ['another port', on('127.0.0.1'), '127.0.0.1:8091', false],
    ['no port where the server is not on 80', on('127.0.0.1'), '127.0.0.1', false],
    ['a name that resolves here (DNS rebinding)', on('127.0.0.1'), 'evil.example:8090', false],
    ['a subdomain of localhost', on('127.0.0.1'), 'a.localhost:8090', false],
    ['no Host at all', on('127.0.0.1'), undefined, false],
    ['garbage', on('127.0.0.1'), 'a b:8090', false],
    ['IPv6 loopback, bracketed', on('::1'), '[::1]:8090', true],
    ['localhost beside ::1', on('::1'), 'localhost:8090', true],
    ['any IP literal on a wildcard address', on('0.0.0.0'), '10.1.2.3:8090', true],
    ['but not a name on a wildcard address', on('0.0.0.0'), 'evil.example:8090', false],
    ['a name given with --allowed-host, any port', on('127.0.0.1', ['batch.internal']), 'batch.internal:443', true],
    ['a name:port given, that port only', on('127.0.0.1', ['batch.internal:8443']), 'batch.internal:8443', true],
    ['a name:port given, another port', on('127.0.0.1', ['batch.internal:8443']), 'batch.internal:9000', false],
    ['an allowed name without a port is port 80', on('127.0.0.1', ['batch.internal:80']), 'batch.internal', true],
    ['localhost is not a name of a server on a public address', on('192.0.2.10'), 'localhost:8090', false],
  ])('%s', (_, rule, host, allowed) => {
    expect(hostAllowed(host, rule)).toBe(allowed);
  });
});

describe('originAllowed', () => {
  it.each<[string, string, boolean]>([
    ['its own page', 'http://127.0.0.1:8090', true],
    ['its own page by localhost', 'http://localhost:8090', true],
    ['another site', 'https://evil.example', false],
    ['a rebound name on its port', 'http://evil.example:8090', false],
    ["a sandboxed page's null origin", 'null', false],
    ['another scheme', 'file://127.0.0.1:8090', false],
  ])('%s', (_, origin, allowed) => {
    expect(originAllowed(origin, on('127.0.0.1'))).toBe(allowed);
  });
});

describe('parseAuthority', () => {
  it('takes name and port, bracketed IPv6, and refuses what is no authority', () => {
    expect(parseAuthority('Example.COM:81')).toEqual({ name: 'example.com', port: 81 });
    expect(parseAuthority('[::1]')).toEqual({ name: '[::1]', port: undefined });
    expect(parseAuthority('a:99999')).toBeUndefined();
    expect(parseAuthority('user@host')).toBeUndefined();
    expect(parseAuthority('')).toBeUndefined();
  });
});
