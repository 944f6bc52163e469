import { describe, expect, it } from 'vitest';
import { DownloadError, errorSummary, GatewayHttpError, GatewayTransportError } from '../../src/gateway/errors.js';
import { createRedactor } from '../../src/gateway/redact.js';

describe('GatewayHttpError.fromAnswer', () => {
  it('reads the general envelope (7.1), numeric codes included', () => {
    const error = GatewayHttpError.fromAnswer(
      {
        status: 400,
        bodyText: JSON.stringify({
          error: { message: 'duration out of range', type: 'invalid_request_error', param: 'duration', code: 4001 },
        }),
      },
      { requestId: 'req-1' },
    );
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      param: 'duration',
      code: '4001',
      requestId: 'req-1',
      gatewayEnvelope: true,
    });
    expect(error.message).toBe('400 duration out of range');
  });

  it('reads the task envelope (7.2)', () => {
    const error = GatewayHttpError.fromAnswer({
      status: 503,
      bodyText: '{"code":"no_channel","message":"no available channel","data":null}',
    });
    expect(error).toMatchObject({
      status: 503,
      code: 'no_channel',
      gatewayEnvelope: true,
      message: '503 no available channel',
    });
    expect(error.type).toBeUndefined();
  });

  it('describes a foreign page briefly and caps every message at 500 characters', () => {
    const page = GatewayHttpError.fromAnswer({
      status: 502,
      contentType: 'text/html; charset=utf-8',
      bodyText: '<h1>Bad   Gateway</h1>',
    });
    expect(page.message).toBe("502 answer without the gateway's error envelope (text/html): Bad Gateway");
    expect(page.gatewayEnvelope).toBe(false);
    const long = GatewayHttpError.fromAnswer({
      status: 400,
      bodyText: JSON.stringify({ error: { message: 'x'.repeat(5000), type: 't' } }),
    });
    expect(long.message.length).toBeLessThanOrEqual(504);
  });

  it('redacts the secret from every field it copies', () => {
    const redact = createRedactor(['sk-live-123456']);
    const error = GatewayHttpError.fromAnswer(
      {
        status: 401,
        bodyText: JSON.stringify({
          error: {
            message: 'key sk-live-123456 revoked',
            type: 'sk-live-123456',
            param: 'sk-live-123456',
            code: 'sk-live-123456',
          },
        }),
      },
      { redact, requestId: 'sk-live-123456' },
    );
    expect(JSON.stringify(error) + error.message).not.toContain('sk-live-123456');
    const page = GatewayHttpError.fromAnswer(
      { status: 502, bodyText: '<p>key sk-live-123456</p>', contentType: 'text/sk-live-123456; a=b' },
      { redact },
    );
    expect(page.message).toBe("502 answer without the gateway's error envelope (text/[redacted]): key [redacted]");
  });

  it('keeps a JSON object body as it came (the key redacted), and no body that is not one or is too long', () => {
    const redact = createRedactor(['sk-live-123456']);
    const body = { error: { message: '  two\nlines, key sk-live-123456 ', type: null, code: 7 }, hint: [1, { a: 2 }] };
    const kept = GatewayHttpError.fromAnswer({ status: 404, bodyText: JSON.stringify(body) }, { redact });
    expect(kept.body).toEqual({ ...body, error: { ...body.error, message: '  two\nlines, key [redacted] ' } });
    for (const bodyText of ['<p>no</p>', '[1,2]', '"text"', 'null', '', JSON.stringify({ m: 'x'.repeat(70_000) })])
      expect(GatewayHttpError.fromAnswer({ status: 400, bodyText }).body).toBeUndefined();
  });
});

describe('errorSummary', () => {
  it('keeps the stable fields of each error class', () => {
    const http = new GatewayHttpError({
      status: 400,
      message: 'bad',
      type: 'invalid_request_error',
      param: 'prompt',
      gatewayEnvelope: true,
    });
    expect(errorSummary(http)).toEqual({
      status: 400,
      type: 'invalid_request_error',
      param: 'prompt',
      message: '400 bad',
    });
    expect(errorSummary(new GatewayTransportError('GBATCH_TIMEOUT', true, 'headers timeout'))).toEqual({
      code: 'GBATCH_TIMEOUT',
      message: 'headers timeout',
    });
    const download = new DownloadError({
      taskId: 't',
      reason: 'truncated',
      source: 'content',
      status: 200,
      attempts: 3,
      message: 'short',
    });
    expect(errorSummary(download)).toEqual({
      status: 200,
      code: 'GBATCH_DOWNLOAD',
      type: 'truncated',
      message: 'short',
    });
    expect(errorSummary(new Error('plain'))).toEqual({ message: 'plain' });
    expect(errorSummary('text')).toEqual({ message: 'text' });
  });
});
