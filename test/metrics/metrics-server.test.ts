// The /metrics endpoint on loopback: a token among those configured, or nothing; no token configured
// serves loopback only, and refuses an address beyond it.
import { expect, test } from 'vitest';
import { onTestFinished } from 'vitest';
import { startMetricsServer } from '../../src/metrics/metrics-server.js';
import { bearerAllowed, isLoopbackHost, parseTokens } from '../../src/metrics/metrics-tokens.js';

async function serve(tokens: string[]) {
  const server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    tokens,
    read: async () => ({ text: 'up 1\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' }),
  });
  onTestFinished(() => server.close());
  return server;
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

test('with tokens: 401 without one or with a wrong one, 200 with any configured one', async () => {
  const server = await serve(parseTokens(' tok-a , tok-b ,,'));
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const none = await get(server.url);
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect((await get(server.url, { authorization: 'Bearer tok-c' })).status).toBe(401);
  expect((await get(server.url, { authorization: 'Basic tok-a' })).status).toBe(401);
  expect((await get(server.url, { authorization: 'Bearer tok-a' })).status).toBe(200);
  const ok = await get(server.url, { authorization: 'Bearer tok-b' });
  expect(await ok.text()).toBe('up 1\n');
});

test('without tokens: served on loopback; other paths 404, other methods 405', async () => {
  const server = await serve([]);
  expect((await get(server.url)).status).toBe(200);
  expect((await get(server.url.replace('/metrics', '/'))).status).toBe(404);
  expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
});

test('without tokens, an address beyond loopback is refused before listening', async () => {
  await expect(
    startMetricsServer({ host: '0.0.0.0', port: 0, tokens: [], read: async () => ({ text: '', contentType: '' }) }),
  ).rejects.toThrow(/not loopback: set GBATCH_METRICS_TOKENS/);
});

test('tokens and hosts', () => {
  expect(bearerAllowed('Bearer  x ', ['x'])).toBe(true);
  expect(bearerAllowed('Bearer x', [])).toBe(false);
  expect(bearerAllowed(undefined, ['x'])).toBe(false);
  for (const host of ['127.0.0.1', '127.8.0.1', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
});
