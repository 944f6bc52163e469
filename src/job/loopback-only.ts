// A server that asks for no sign-in (--no-auth) answers on loopback only.
import { isLoopbackHost } from '../core/bearer-tokens.js';
import { UsageError } from './options.js';

export function requireLoopbackWithoutAuth(authenticated: boolean, host: string): void {
  if (!authenticated && !isLoopbackHost(host))
    throw new UsageError(`--no-auth listens on loopback only (127.0.0.1, ::1, localhost), not ${host}`);
}
