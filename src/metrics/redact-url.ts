// A URL as messages show it: never its credentials or query (a Pushgateway behind basic auth).
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}
