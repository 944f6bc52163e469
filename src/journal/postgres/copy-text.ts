// COPY's text format: one line per row, tab between fields, \N for NULL, and a backslash before
// the characters the format gives a meaning to.

const SPECIAL = /[\\\t\n\r]/;

function escapeField(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One row of COPY text (with its newline). */
export function copyLine(fields: ReadonlyArray<string | number | null>): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const value = fields[i];
    if (i > 0) line += '\t';
    line += value === null || value === undefined ? '\\N' : typeof value === 'number' ? String(value) : escapeField(value);
  }
  return line + '\n';
}
