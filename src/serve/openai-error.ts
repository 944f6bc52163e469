// Errors in OpenAI's envelope: {"error": {"message", "type", "param", "code"}}, which the official SDKs parse.
export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'server_error';

export interface OpenAiError {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 416 | 421 | 429 | 500 | 503 | 507;
  body: { error: { message: string; type: ErrorType; param: string | null; code: string | null } };
}

export function apiError(
  status: OpenAiError['status'],
  message: string,
  options: { type?: ErrorType; param?: string; code?: string } = {},
): OpenAiError {
  const type =
    options.type ??
    (status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error');
  return { status, body: { error: { message, type, param: options.param ?? null, code: options.code ?? null } } };
}

export const notFound = (what: 'file' | 'batch', id: string): OpenAiError =>
  apiError(404, `No ${what} found with id '${id.slice(0, 100)}'.`, {
    type: 'invalid_request_error',
    code: 'not_found',
  });

/** Thrown by a handler; the app answers with it. */
export class ApiFailure extends Error {
  constructor(readonly failure: OpenAiError) {
    super(failure.body.error.message);
    this.name = 'ApiFailure';
  }
}
