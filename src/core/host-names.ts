// Pure: whether a request names this server. A web page on any name that resolves to this machine (DNS
// rebinding) reaches a server on loopback with its own name in `Host` and `Origin`; a server that answers
// only the names it was given is out of that page's reach. IP literals cannot be rebound, so the address
// the server listens on is always its own name.
import { isLoopbackHost } from './bearer-tokens.js';

export interface HostRule {
  /** The address the server listens on (--host). */
  listenHost: string;
  /** The port it listens on (the bound one, when --port 0). */
  port: number;
  /** Names given with --allowed-host: `name` (any port) or `name:port`. */
  allowedHosts: readonly string[];
}

/** A `Host` header (or an origin's authority) as name and port; undefined when it is no authority at all. */
export function parseAuthority(text: string): { name: string; port: number | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/\s@]+)(?::(\d{1,5}))?$/i.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]!.toLowerCase().replace(/\.$/, '');
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { name, port };
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const isIpLiteral = (name: string): boolean => IPV4.test(name) || name.startsWith('[');
const bracketed = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** Whether `host` (a Host header, or an origin's host:port) names this server under `rule`. */
export function hostAllowed(host: string | undefined, rule: HostRule, defaultPort = 80): boolean {
  if (host === undefined) return false;
  const given = parseAuthority(host);
  if (!given) return false;
  const port = given.port ?? defaultPort;
  for (const entry of rule.allowedHosts) {
    const allowed = parseAuthority(entry);
    if (allowed && allowed.name === given.name && (allowed.port === undefined || allowed.port === port)) return true;
  }
  if (port !== rule.port) return false;
  const listen = bracketed(rule.listenHost.toLowerCase());
  if (given.name === listen) return true;
  if (WILDCARDS.has(listen)) return isIpLiteral(given.name) || given.name === 'localhost';
  return given.name === 'localhost' && isLoopbackHost(rule.listenHost);
}

/** Whether an `Origin` header is this server's own (a page it served); `null` and anything unparsable are not. */
export function originAllowed(origin: string, rule: HostRule): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return hostAllowed(url.host, rule, url.protocol === 'https:' ? 443 : 80);
}
