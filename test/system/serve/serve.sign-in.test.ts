// Guessing a token is not free: an address that fails 10 sign-ins within a minute is refused (429 with
// Retry-After) until the minute ends, each failure logged with its address and count, never the token;
// and a token under 16 characters is refused before the server starts.
import { describe, expect, it } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startServe, TOKEN_A } from '../../helpers/serve.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

describe.skipIf(!BUILT)('gbatch serve: sign-in', () => {
  it('refuses an address after 10 failed sign-ins in a minute, the right token too, and logs each without the token', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const files = `${server.url}/files`;
    const guess = (token: string) => rawRequest(files, { headers: { authorization: `Bearer ${token}` } });
    expect((await guess(TOKEN_A)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await guess(`wrong-guess-number-${i}`)).status).toBe(401);
    const refused = await guess(TOKEN_A);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'too_many_failed_sign_ins' } });
    expect(server.stderr()).toContain('failed sign-in from 127.0.0.1 (1 of 10 within 60 s)');
    expect(server.stderr()).toContain(
      'failed sign-in from 127.0.0.1 (10 of 10 within 60 s): refusing it until the window ends',
    );
    expect(server.stderr()).not.toContain('wrong-guess-number');
    // A bearer in any case is a bearer.
    const other = await startServe({ data: ws.path('data2'), gateway: sim.baseUrl });
    expect((await rawRequest(`${other.url}/files`, { headers: { authorization: `bearer ${TOKEN_A}` } })).status).toBe(
      200,
    );
  });

  it('refuses a token under 16 characters at start (exit 2, one line without the token)', async () => {
    const ws = workspace('gbatch-serve-');
    const result = await runCli(['serve', '--port', '0', '--data', ws.path('d')], {
      env: {
        GATEWAY_BASE_URL: 'http://127.0.0.1:9/v1',
        GATEWAY_API_KEY: 'k',
        GBATCH_SERVE_TOKENS: 'a-long-enough-token,t1',
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'gbatch serve: GBATCH_SERVE_TOKENS: a token of 2 character(s) is too short to be a secret: use 16 or more (e.g. `openssl rand -hex 16`)',
    );
  });
});
