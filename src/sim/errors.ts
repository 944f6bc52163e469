// Error answers in the gateway's two envelopes (spec 7.1, 7.2) and an intermediary's HTML page.

import { json, type Reply } from './reply.js';

/** The family the gateway uses for errors of its own (spec 7.1: a value ending in `_api_error`). */
export const GATEWAY_ERROR_TYPE = 'gateway_api_error';

/** `{ error: { message, type, param, code } }`: text endpoints, models, content, and every 401. */
export function generalError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers?: Record<string, string>,
): Reply {
  return json({ error: { message, type, param, code } }, status, headers);
}

/** `{ code, message, data }`: video endpoints 4 and 5 (except 401 and 429). */
export function taskError(status: number, code: string, message: string, data: unknown = null): Reply {
  return json({ code, message, data }, status);
}

export function unauthorized(): Reply {
  return generalError(
    401,
    'Invalid, missing or revoked API key (use Authorization: Bearer <key>)',
    'invalid_request_error',
    null,
    'invalid_api_key',
  );
}

export function rateLimited(retryAfterSeconds: number): Reply {
  return generalError(
    429,
    `Rate limit reached for this key; retry after ${retryAfterSeconds} s`,
    'rate_limit_error',
    null,
    'rate_limit_exceeded',
    { 'retry-after': String(retryAfterSeconds) },
  );
}

export function notFound(what: string): Reply {
  return generalError(404, `${what} not found`, 'invalid_request_error', null, 'not_found');
}

const REASONS: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Time-out',
};
const GATEWAY_CODES: Record<number, string> = {
  500: 'internal_error',
  502: 'bad_upstream_response',
  503: 'no_available_upstream',
};

/** An injected 5xx in the gateway's own envelope: the gateway kept nothing (spec 7.4.3). */
export function gatewayFailure(status: 500 | 502 | 503, taskEnvelope: boolean): Reply {
  const message = `Simulated ${status} ${REASONS[status]}: nothing was kept, the request may be retried`;
  const code = GATEWAY_CODES[status]!;
  return taskEnvelope
    ? taskError(status, code, message)
    : generalError(status, message, GATEWAY_ERROR_TYPE, null, code);
}

/** A proxy in front of the gateway gave up: not the gateway's envelope, the outcome is unknown. */
export function intermediaryPage(status: 502 | 504): Reply {
  const title = `${status} ${REASONS[status]}`;
  return {
    kind: 'html',
    status,
    body: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  };
}
