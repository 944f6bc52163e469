// Every answer of serve carries an x-request-id, as OpenAI's do: a success, an error the SDK raises (whose
// request_id it fills from the header), and a refusal made before any route runs.
import { describe, expect, it } from 'vitest';
import { rawRequest } from '../../helpers/raw-http.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { client, startServe } from '../../helpers/serve.js';

const REQUEST_ID = /^req_[0-9a-f]{24}$/;

describe('gbatch serve: x-request-id', () => {
  it('names every answer, each with its own id', async () => {
    const ws = workspace();
    const sim = await startSim();
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl });
    const openai = client(server);
    const listed = await openai.batches.list().withResponse();
    const first = listed.response.headers.get('x-request-id');
    expect(first).toMatch(REQUEST_ID);
    await expect(openai.batches.retrieve('batch_000000000000000000000000')).rejects.toMatchObject({
      status: 404,
      requestID: expect.stringMatching(REQUEST_ID) as unknown,
    });
    const again = (await openai.files.list().withResponse()).response.headers.get('x-request-id');
    expect(again).toMatch(REQUEST_ID);
    expect(again).not.toBe(first);
    const port = new URL(server.url).port;
    const misdirected = await rawRequest(`${server.url}/batches`, { headers: { host: `evil.example:${port}` } });
    expect(misdirected.status).toBe(421);
    expect(misdirected.headers['x-request-id']).toMatch(REQUEST_ID);
    const unsigned = await rawRequest(`${server.url}/files`);
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers['x-request-id']).toMatch(REQUEST_ID);
  });
});
