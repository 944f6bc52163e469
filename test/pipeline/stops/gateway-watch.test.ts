import { describe, expect, it } from 'vitest';
import { GatewayTransportError } from '../../../src/gateway/errors.js';
import { GatewayWatch } from '../../../src/pipeline/stops/gateway-watch.js';

const refusal = (port: number) =>
  new GatewayTransportError(
    'GBATCH_CONNECT',
    false,
    `POST http://127.0.0.1:${port}/v1/chat/completions failed before the request was sent: connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED)`,
    { systemError: { code: 'ECONNREFUSED', message: `connect ECONNREFUSED 127.0.0.1:${port}` } },
  );

describe('GatewayWatch', () => {
  it('calls onUnreachable once, on the third refusal in a row, with the errno and the address', () => {
    const watch = new GatewayWatch('http://127.0.0.1:9/v1');
    const lines: string[] = [];
    watch.onUnreachable = (line) => lines.push(line);
    watch.refused(refusal(9));
    watch.refused(refusal(9));
    expect(lines).toEqual([]);
    watch.refused(refusal(9));
    for (let i = 0; i < 10; i++) watch.refused(refusal(9));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^gateway unreachable at http:\/\/127\.0\.0\.1:9\/v1: connect ECONNREFUSED 127\.0\.0\.1:9 \(3 refused connections in a row\)$/,
    );
    expect(watch.unreachable).toBe(true);
  });

  it('an answer between refusals keeps the run going', () => {
    const watch = new GatewayWatch('http://127.0.0.1:9/v1');
    let tripped = false;
    watch.onUnreachable = () => {
      tripped = true;
    };
    for (let i = 0; i < 5; i++) {
      watch.refused(refusal(9));
      watch.refused(refusal(9));
      watch.answered();
    }
    expect(tripped).toBe(false);
  });

  it('names other connect failures by their errno', () => {
    const watch = new GatewayWatch('http://nosuch.invalid/v1');
    const lines: string[] = [];
    watch.onUnreachable = (line) => lines.push(line);
    const error = new GatewayTransportError('GBATCH_CONNECT', false, 'GET failed', {
      systemError: { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nosuch.invalid' },
    });
    for (let i = 0; i < 3; i++) watch.refused(error);
    expect(lines[0]).toContain('getaddrinfo ENOTFOUND nosuch.invalid (3 failed connection attempts in a row)');
  });
});
