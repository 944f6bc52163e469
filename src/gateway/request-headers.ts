// The headers of one request. The key goes to the gateway's own origin only, never to a result_url
// host or a redirect elsewhere.

const USER_AGENT = 'gbatch/0.1';

export interface HeaderFacts {
  /** The request goes to the gateway's own origin. */
  ownOrigin: boolean;
  apiKey: string;
  accept: string;
  /** The request carries a JSON body. */
  json: boolean;
}

export function requestHeaders({ ownOrigin, apiKey, accept, json }: HeaderFacts): Record<string, string> {
  const headers: Record<string, string> = { accept, 'user-agent': USER_AGENT };
  if (json) headers['content-type'] = 'application/json';
  if (ownOrigin) headers['authorization'] = `Bearer ${apiKey}`;
  return headers;
}
