// A refused connection is named by its errno and address, and told to the client's connectivity
// listener; any answer (whatever its status) counts as the gateway being there.
import type { ServerResponse } from 'node:http';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectivityListener } from '../../src/gateway/client.js';
import { GatewayTransportError } from '../../src/gateway/errors.js';
import { systemErrorOf } from '../../src/gateway/system-error.js';
import { drive, makeClient } from '../helpers/client-fixture.js';
import { closedPort, json, startServer } from '../helpers/test-server.js';

const CHAT = { model: 'chat-small', messages: [{ role: 'user', content: 'hi' }] };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function recorder(): ConnectivityListener & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    answered: () => void seen.push('answered'),
    refused: (error) => void seen.push(`refused ${error.systemError?.code ?? '?'}`),
  };
}

describe('systemErrorOf', () => {
  const errno = (code: string, message: string) => Object.assign(new Error(message), { code, syscall: 'connect' });

  it('finds the errno through causes and several addresses tried', () => {
    const refused = errno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9');
    expect(systemErrorOf(refused)).toEqual({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' });
    const wrapped = new TypeError('fetch failed', {
      cause: Object.assign(new Error('wrapper'), { code: 'UND_ERR_SOCKET', cause: refused }),
    });
    expect(systemErrorOf(wrapped)?.code).toBe('ECONNREFUSED');
    const several = new AggregateError([errno('EHOSTUNREACH', 'connect EHOSTUNREACH ::1:9'), refused], 'all failed');
    expect(systemErrorOf(several)).toEqual({ code: 'EHOSTUNREACH', message: 'connect EHOSTUNREACH ::1:9' });
  });

  it("names undici's connect timeout ETIMEDOUT, and finds nothing in other errors", () => {
    const timeout = Object.assign(
      new Error('Connect Timeout Error (attempted address: 10.0.0.1:80, timeout: 10000ms)'),
      { code: 'UND_ERR_CONNECT_TIMEOUT' },
    );
    expect(systemErrorOf(timeout)?.code).toBe('ETIMEDOUT');
    expect(systemErrorOf(timeout)?.message).toContain('10.0.0.1:80');
    expect(systemErrorOf(new Error('plain'))).toBeUndefined();
    expect(systemErrorOf('text')).toBeUndefined();
  });
});

describe('the client and a closed port', () => {
  it('a refused submission carries ECONNREFUSED and the address, and the listener hears "refused"', async () => {
    const port = await closedPort();
    const listener = recorder();
    const { client } = makeClient(`http://127.0.0.1:${port}/v1`, { connectivity: listener });
    cleanups.push(() => client.close());
    let onWire = 0;
    const outcome = await client.send('chat', CHAT, 1, { onWire: () => void onWire++ });
    expect(outcome.kind).toBe('retry');
    // Nothing reached a socket: --rpm does not count it.
    expect(onWire).toBe(0);
    const error = (outcome as { error: GatewayTransportError }).error;
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error.mayHaveReached).toBe(false);
    expect(error.systemError).toEqual({ code: 'ECONNREFUSED', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(listener.seen).toEqual(['refused ECONNREFUSED']);
  });

  it('every attempt of a poll is heard, so a run can stop before the read retries run out', async () => {
    const port = await closedPort();
    const listener = recorder();
    const { client, clock } = makeClient(`http://127.0.0.1:${port}/v1`, { connectivity: listener });
    cleanups.push(() => client.close());
    await expect(drive(clock, client.getTask('task_1'))).rejects.toBeInstanceOf(GatewayTransportError);
    expect(listener.seen).toEqual(Array(4).fill('refused ECONNREFUSED'));
  });

  it('any status from the gateway is an answer, an error status too', async () => {
    let calls = 0;
    const server = await startServer((_req, res) =>
      calls++ === 0 ? json(res, 500, { error: { message: 'x', type: 'server_error' } }) : json(res, 200, { id: 'c' }),
    );
    const listener = recorder();
    const { client } = makeClient(server.baseUrl, { connectivity: listener });
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    const onWireBeforeAnswer: boolean[] = [];
    for (let i = 0; i < 2; i++) {
      let onWire = 0;
      const before = calls;
      await client.send('chat', CHAT, 1, {
        onWire: () => void onWireBeforeAnswer.push(calls === before && ++onWire === 1),
      });
      expect(onWire).toBe(1);
    }
    // Once per request, before the gateway handled it.
    expect(onWireBeforeAnswer).toEqual([true, true]);
    expect(listener.seen).toEqual(['answered', 'answered']);
  });
});

describe('send: the unsent signal (the run stopped sending)', () => {
  it('a submission held by a 429 pause never leaves once the run stops sending', async () => {
    const server = await startServer((_req, res) =>
      json(res, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '30' }),
    );
    const { client, clock } = makeClient(server.baseUrl);
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    expect((await client.send('chat', CHAT, 1)).kind).toBe('retry');
    const hardStop = new AbortController();
    const unsent = new AbortController();
    const held = client.send('chat', CHAT, 2, { signal: hardStop.signal, unsent: unsent.signal });
    await clock.waitForSleepers(1); // waiting out the account pause
    unsent.abort('deadline');
    const error = await held.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(GatewayTransportError);
    expect(error).toMatchObject({ code: 'GBATCH_ABORTED', mayHaveReached: false });
    expect(server.requests).toHaveLength(1);
  });
});

describe('send: the unsent signal and the connection pool', () => {
  it('a submission still queued for a socket never leaves once the run stops sending; a sent one is not touched', async () => {
    let held: ServerResponse | undefined;
    const server = await startServer((req, res) => {
      if (req.bodyText.includes('first')) held = res;
      else json(res, 200, { id: 'c' });
    });
    const { client } = makeClient(server.baseUrl, { connections: 1 });
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    const say = (text: string) => ({ ...CHAT, messages: [{ role: 'user', content: text }] });
    const unsentFirst = new AbortController();
    const first = client.send('chat', say('first'), 1, { unsent: unsentFirst.signal });
    await server.received(1);
    const unsent = new AbortController();
    const second = client.send('chat', say('second'), 1, { unsent: unsent.signal });
    await new Promise((resolve) => setImmediate(resolve)); // queued behind the one busy connection
    unsent.abort('deadline');
    unsentFirst.abort('deadline'); // already on the wire: the stop does not cut it
    await expect(second).rejects.toMatchObject({ code: 'GBATCH_ABORTED', mayHaveReached: false });
    json(held!, 200, { id: 'first-answer' });
    expect(await first).toMatchObject({ kind: 'completed', body: { id: 'first-answer' } });
    expect((await client.send('chat', say('third'), 1)).kind).toBe('completed');
    expect(server.requests.map((r) => JSON.parse(r.body).messages[0].content)).toEqual(['first', 'third']);
  });

  it('leaves no listener behind on the run-wide signals once the exchange is over', async () => {
    const server = await startServer((_req, res) => json(res, 200, { id: 'c' }));
    const { client } = makeClient(server.baseUrl);
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    const hardStop = new AbortController();
    const unsent = new AbortController();
    for (let i = 0; i < 3; i++)
      expect((await client.send('chat', CHAT, 1, { signal: hardStop.signal, unsent: unsent.signal })).kind).toBe(
        'completed',
      );
    await new Promise((resolve) => setImmediate(resolve)); // the body's 'close' follows its end
    expect(getEventListeners(hardStop.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(unsent.signal, 'abort')).toHaveLength(0);
  });
});
