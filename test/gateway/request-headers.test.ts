// The headers of one request (src/gateway/request-headers.ts): the key only to the gateway's own origin.
import { expect, it } from 'vitest';
import { requestHeaders } from '../../src/gateway/request-headers.js';

it("the key goes to the gateway's own origin, never elsewhere; a JSON body says so", () => {
  expect(requestHeaders({ ownOrigin: true, apiKey: 'sk-1', accept: 'application/json', json: true })).toEqual({
    accept: 'application/json',
    'user-agent': 'gbatch/0.1',
    'content-type': 'application/json',
    authorization: 'Bearer sk-1',
  });
  expect(requestHeaders({ ownOrigin: false, apiKey: 'sk-1', accept: '*/*', json: false })).toEqual({
    accept: '*/*',
    'user-agent': 'gbatch/0.1',
  });
});
