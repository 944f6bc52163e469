// Pure: untrusted text (ids, paths, prompts) made safe to print in advice a user copies into a shell.

/** An id or path as it can be typed back into a shell: plain when safe, else single-quoted, control characters escaped. */
export function quoteArg(text: string): string {
  if (/^[\w./:@%+=,-]+$/.test(text)) return text;
  return `'${escapeControl(text).replace(/'/g, `'\\''`)}'`;
}

/** Control and bidirectional-override characters as \xNN / \u{N} escapes, so a terminal shows them instead of obeying them. */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
