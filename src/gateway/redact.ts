// Keeps the API key out of every text that may reach an error, a log, the journal or a results file.
// The gateway client passes everything it got from the gateway through redactDeep (client.ts).

export const REDACTED = '[redacted]';

/** A function that removes the given secrets (and any bearer token) from a text. */
export type Redactor = (text: string) => string;

const hexByte = (n: number): string => {
  const hex = n.toString(16).padStart(2, '0');
  // Either case of each hex digit: %2f and %2F are the same byte.
  return [...hex].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('');
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** JSON's two-letter escapes for the characters a key may hold; control characters have no place in one. */
const JSON_SHORT: Readonly<Record<string, string>> = { '"': '\\\\"', '\\': '\\\\\\\\', '/': '\\\\/' };

/**
 * One character of a secret in any of the forms a body can carry it: as is, percent-encoded (either
 * hex case, `+` for a space), or JSON-escaped (`\u0073`, `\/`). Mixed forms match too.
 */
function characterForms(char: string): string {
  const forms = [escapeRegExp(char)];
  const bytes = Buffer.from(char, 'utf8');
  forms.push([...bytes].map((b) => `%${hexByte(b)}`).join(''));
  if (char === ' ') forms.push('\\+');
  const units = [...Array(char.length).keys()].map((i) => char.charCodeAt(i));
  forms.push(
    units
      .map(
        (u) =>
          `\\\\u${[...u.toString(16).padStart(4, '0')].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('')}`,
      )
      .join(''),
  );
  const short = JSON_SHORT[char];
  if (short !== undefined) forms.push(short);
  return `(?:${forms.join('|')})`;
}

function secretPattern(secret: string): string {
  return [...secret].map(characterForms).join('');
}

/** `Bearer <token>` where the token looks like a credential (so prose such as "bearer bonds" stays). */
const BEARER = /(\bBearer(?:\s|%20|\+)+)(?=[A-Za-z0-9._~+/=-]{8,})(?=[^\s"',;]*[0-9._~+/=-])[^\s"',;]+/gi;

export function createRedactor(secrets: readonly string[]): Redactor {
  const present = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  const pattern = present.length === 0 ? undefined : new RegExp(present.map(secretPattern).join('|'), 'g');
  return (text: string): string => {
    const out = pattern === undefined ? text : text.replace(pattern, REDACTED);
    return out.replace(BEARER, `$1${REDACTED}`);
  };
}

export const redactNothing: Redactor = createRedactor([]);

/**
 * Every string of a parsed JSON value redacted, object keys included. Returns the value itself when
 * nothing changed (no copy of a large answer for nothing).
 */
export function redactDeep<T>(value: T, redact: Redactor): T {
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = walk(value[i], redact);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => {
      const k = redact(key);
      const v = walk(inner, redact);
      if (k !== key || v !== inner) changed = true;
      return [k, v] as const;
    });
    if (!changed) return value;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    return copy;
  }
  return value;
}
