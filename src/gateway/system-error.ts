// The operating system's reason a connection failed (ECONNREFUSED, ENOTFOUND, EHOSTUNREACH, ETIMEDOUT),
// dug out of undici's wrappers: an operator needs the errno and the address, not "fetch failed".

export interface SystemError {
  /** The errno name, e.g. ECONNREFUSED. */
  code: string;
  /** Node's own text, e.g. "connect ECONNREFUSED 127.0.0.1:8080". */
  message: string;
}

const ERRNO = /^E[A-Z0-9]+$/;

/** undici names its connect timeout itself; the system's name for it is ETIMEDOUT. */
const UNDICI_CODES: Record<string, string> = { UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT' };

/** The first errno-coded error in `err`, its causes and (for several addresses tried) its `errors`. */
export function systemErrorOf(err: unknown, depth = 0): SystemError | undefined {
  if (!(err instanceof Error) || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && ERRNO.test(code)) return { code, message: err.message || code };
  const nested = (err as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const found = systemErrorOf(inner, depth + 1);
      if (found) return found;
    }
  }
  const fromCause = systemErrorOf((err as { cause?: unknown }).cause, depth + 1);
  if (fromCause) return fromCause;
  if (typeof code === 'string' && UNDICI_CODES[code])
    return { code: UNDICI_CODES[code]!, message: err.message || code };
  return undefined;
}
