// Where requests go: the gateway's SDK-style base URL and the result_url links it hands out.

export function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(
      `Expected the gateway base URL to be an http(s) URL such as http://127.0.0.1:8080/v1, got \`${baseUrl}\``,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Expected the gateway base URL to start with http:// or https://, got \`${url.protocol}\``);
  }
  if (url.username || url.password)
    throw new Error('The gateway base URL must not carry credentials; use GATEWAY_API_KEY');
  const path = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, basePath: path === '' ? '/v1' : path };
}

/** An http(s) URL, or undefined for anything else (a result_url we will not follow). */
export function parseHttpUrl(text: string | undefined): URL | undefined {
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The http(s) target of a redirect's Location, resolved against the URL that answered; else undefined. */
export function resolveRedirect(location: string, base: URL): URL | undefined {
  try {
    return parseHttpUrl(new URL(location, base).href);
  } catch {
    return undefined;
  }
}
