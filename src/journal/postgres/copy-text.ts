// COPY's text format: one line per row, tab between fields, \N for NULL, and a backslash before
// the characters the format gives a meaning to.

const SPECIAL = /[\\\t\n\r]/;

function escapeField(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One text field as COPY writes it: \N for null. */
export function copyField(value: string | null | undefined): string {
  return value === null || value === undefined ? '\\N' : escapeField(value);
}

/** One row of COPY text (with its newline). */
export function copyLine(fields: ReadonlyArray<string | number | null>): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const value = fields[i];
    if (i > 0) line += '\t';
    line +=
      value === null || value === undefined ? '\\N' : typeof value === 'number' ? String(value) : escapeField(value);
  }
  return line + '\n';
}

const UNESCAPE: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** One field of COPY text output: null for \N, escapes undone. */
export function parseCopyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code[0] === 'x') return String.fromCharCode(parseInt(code.slice(1), 16));
    if (/^[0-7]/.test(code)) return String.fromCharCode(parseInt(code, 8));
    return UNESCAPE[code] ?? code;
  });
}
