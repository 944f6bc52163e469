// Keeps the API key out of every text that may reach an error, a log or the journal.

export const REDACTED = '[redacted]';

/** A function that removes the given secrets (and any bearer token) from a text. */
export type Redactor = (text: string) => string;

export function createRedactor(secrets: readonly string[]): Redactor {
  const present = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const secret of present) out = out.split(secret).join(REDACTED);
    return out.replace(/(Bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`);
  };
}

export const redactNothing: Redactor = createRedactor([]);
