// --push-metrics URL: checked before the run starts, and shown without its credentials or query (a
// Pushgateway behind basic auth).

/** The URL as messages show it. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** The URL as given, or why it cannot be used (a usage error before the run starts). */
export function checkPushUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--push-metrics ${JSON.stringify(value)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--push-metrics must be an http(s) URL`;
  return undefined;
}
