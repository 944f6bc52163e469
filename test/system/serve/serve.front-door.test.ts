// Who may talk to `gbatch serve`: only requests that name the server (its address, or --allowed-host), never a
// page of another site (DNS rebinding, a cross-site form, a text/plain body), and never a body past its limit
// while it streams.
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startServe, TOKEN_A } from '../../helpers/serve.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const auth = { authorization: `Bearer ${TOKEN_A}` };

describe.skipIf(!BUILT)('gbatch serve: the front door', () => {
  it('answers only its own address and the --allowed-host names (421 otherwise, in the error envelope)', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--allowed-host', 'batch.internal'],
    });
    const { port } = new URL(server.url);
    const files = `${server.url}/files`;
    expect((await rawRequest(files, { headers: auth })).status).toBe(200);
    expect((await rawRequest(files, { headers: { ...auth, host: `localhost:${port}` } })).status).toBe(200);
    expect((await rawRequest(files, { headers: { ...auth, host: 'batch.internal' } })).status).toBe(200);
    const rebound = await rawRequest(files, { headers: { ...auth, host: `evil.example:${port}` } });
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.body)).toMatchObject({
      error: { type: 'invalid_request_error', code: 'misdirected_request', param: null },
    });
    expect(
      (await rawRequest(`${server.url.replace('/v1', '')}/metrics`, { headers: { host: `evil.example:${port}` } }))
        .status,
    ).toBe(421);
  });

  it('--no-auth: refuses a page of another site (Origin, Sec-Fetch-Site) and a body that is not application/json', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({
      data: ws.path('data'),
      gateway: sim.baseUrl,
      args: ['--no-auth'],
      env: { GBATCH_SERVE_TOKENS: undefined },
    });
    const boundary = 'x-boundary';
    const form = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="purpose"',
      '',
      'batch',
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="a.jsonl"',
      'Content-Type: application/octet-stream',
      '',
      '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"chat-small","messages":[]}}',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const upload = (headers: Record<string, string>) =>
      rawRequest(`${server.url}/files`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers },
        body: form,
      });
    expect((await upload({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await upload({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await upload({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await rawRequest(`${server.url}/files`)).body).toContain('"data":[]');

    const plain = await rawRequest(`${server.url}/batches`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body)).toMatchObject({ error: { message: expect.stringContaining('application/json') } });
    const noPurpose = await rawRequest(`${server.url}/files`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: form
        .split(`--${boundary}\r\n`)
        .filter((part) => !part.includes('name="purpose"'))
        .join(`--${boundary}\r\n`),
    });
    expect(noPurpose.status).toBe(400);
    expect(JSON.parse(noPurpose.body)).toMatchObject({
      error: { message: "Missing required parameter: 'purpose'", param: 'purpose' },
    });
    // Its own page (same origin) is no other site.
    expect((await upload({ origin: new URL(server.url).origin, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('cuts a chunked JSON body off at 1 MiB while it streams (413), and carries on', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const { request } = await import('node:http');
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/batches`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // Up to 64 MiB, stopped as soon as the server answers: it must not wait for the end.
      let sent = 0;
      const pump = (): void => {
        while (sent < 1024 && req.write(chunk)) sent++;
        if (sent >= 1024) req.end();
        else req.once('drain', pump);
      };
      req.on('response', () => req.destroy());
      pump();
    }).catch((err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 413 : Promise.reject(err),
    );
    expect(answer).toBe(413);
    expect((await rawRequest(`${server.url}/files`, { headers: auth })).status).toBe(200);
  });
});
