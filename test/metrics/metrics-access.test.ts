// Who may read /metrics: the run's rule (its tokens; none configured: anyone, the listener on loopback) and a
// server's (its clients' tokens or the metrics tokens; neither: anyone).
import { expect, test } from 'vitest';
import {
  metricsAllowed,
  openMetricsRefusal,
  serverMetricsAllowed,
  serverMetricsScope,
} from '../../src/metrics/metrics-access.js';

const bearer = (token: string): string => `Bearer ${token}`;

test("a run's /metrics: a configured token, or anyone when none is configured (loopback only)", () => {
  expect(metricsAllowed(undefined, [])).toBe(true);
  expect(metricsAllowed(bearer('m1'), ['m1', 'm2'])).toBe(true);
  expect(metricsAllowed(bearer('m3'), ['m1', 'm2'])).toBe(false);
  expect(metricsAllowed(undefined, ['m1'])).toBe(false);
  expect(metricsAllowed('Basic bTE6', ['m1'])).toBe(false);
  expect(openMetricsRefusal('127.0.0.1', [], '--metrics-host')).toBeUndefined();
  expect(openMetricsRefusal('0.0.0.0', ['m1'], '--metrics-host')).toBeUndefined();
  expect(openMetricsRefusal('0.0.0.0', [], '--metrics-host')).toMatch(/^--metrics-host 0\.0\.0\.0 is not loopback/);
});

test("a server's /metrics: a client's token or a metrics token; open only when neither is configured", () => {
  const client = (token: string): boolean => token === 'client';
  expect(serverMetricsAllowed(bearer('client'), [], client)).toBe(true);
  expect(serverMetricsAllowed(bearer('client'), ['m1'], client)).toBe(true);
  expect(serverMetricsAllowed(bearer('m1'), ['m1'], client)).toBe(true);
  expect(serverMetricsAllowed(bearer('m1'), [], client)).toBe(false);
  expect(serverMetricsAllowed(undefined, [], client)).toBe(false);
  expect(serverMetricsAllowed(bearer('other'), ['m1'], client)).toBe(false);
  // Clients without tokens (--no-auth): open, unless metrics tokens are configured.
  expect(serverMetricsAllowed(undefined, [], undefined)).toBe(true);
  expect(serverMetricsAllowed(undefined, ['m1'], undefined)).toBe(false);
  expect(serverMetricsAllowed(bearer('m1'), ['m1'], undefined)).toBe(true);
});

test("serve's /metrics: a client's token reads its own jobs, a metrics token every job", () => {
  const ownerOf = (token: string): string | undefined => ({ alice: 'hash-a', bob: 'hash-b' })[token];
  expect(serverMetricsScope(bearer('alice'), ['m1'], ownerOf)).toEqual({ owner: 'hash-a' });
  expect(serverMetricsScope(bearer('bob'), [], ownerOf)).toEqual({ owner: 'hash-b' });
  expect(serverMetricsScope(bearer('m1'), ['m1'], ownerOf)).toEqual({ all: true });
  expect(serverMetricsScope(bearer('m1'), [], ownerOf)).toBe('refused');
  expect(serverMetricsScope(undefined, [], ownerOf)).toBe('refused');
  expect(serverMetricsScope(bearer('other'), ['m1'], ownerOf)).toBe('refused');
  // Clients without tokens (--no-auth): every job, unless metrics tokens are configured.
  expect(serverMetricsScope(undefined, [], undefined)).toEqual({ all: true });
  expect(serverMetricsScope(undefined, ['m1'], undefined)).toBe('refused');
  expect(serverMetricsScope(bearer('m1'), ['m1'], undefined)).toEqual({ all: true });
});
