// The servers' first check (`gbatch serve`, `gbatch ui`): a request whose Host is not this server's name
// is answered 421 before anything else runs (src/core/host-names.ts says why); with `refuseCrossSite`, so
// is one a browser marks as coming from another site (a foreign Origin, or Sec-Fetch-Site: cross-site),
// which needs no preflight for a form post or a text/plain body.
import type { MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { hostAllowed, originAllowed, type HostRule } from '../core/host-names.js';

export interface HostGuardOptions {
  listenHost: string;
  allowedHosts: readonly string[];
  /** Also refuse (403) every request a browser sends from another site: an API no other site's page may call. */
  refuseCrossSite: boolean;
  refuse(status: 403 | 421, message: string): Response;
}

export function hostGuard(options: HostGuardOptions): MiddlewareHandler<{ Bindings: HttpBindings }> {
  return async (c, next) => {
    const rule: HostRule = {
      listenHost: options.listenHost,
      port: c.env.incoming.socket.localPort ?? 0,
      allowedHosts: options.allowedHosts,
    };
    if (!hostAllowed(c.req.header('host'), rule))
      return options.refuse(
        421,
        `This server answers only to its own address (${options.listenHost}, port ${rule.port}) and to the names given with --allowed-host`,
      );
    if (options.refuseCrossSite) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site')?.toLowerCase();
      if (site === 'cross-site' || (origin !== undefined && !originAllowed(origin, rule)))
        return options.refuse(403, 'Requests from another site are refused');
    }
    return next();
  };
}
