// Text from outside (manifest ids and cells, gateway messages) made safe to print on a terminal: the
// characters that move the cursor, clear the screen, set the title, reorder or hide text are shown as
// visible escapes instead (`\x1b`, `\u202e`). Pure. JSON output needs none of this: JSON.stringify
// already escapes C0, and a JSON reader is not a terminal.

/**
 * C0 controls (tab and newline included: a table cell or a one-line error has neither), DEL, C1
 * controls, and the invisible or bidirectional format characters: zero-width space to right-to-left
 * mark (U+200B-U+200F), line and paragraph separators (U+2028, U+2029), the bidi embeddings and
 * overrides (U+202A-U+202E) and isolates (U+2066-U+2069), the Arabic letter mark (U+061C), and the
 * zero-width no-break space / byte order mark (U+FEFF).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
/** The same, with newline and tab allowed: for a block of lines meant as such. */
const UNPRINTABLE_IN_BLOCK =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of text, safe to print: every control and invisible format character as a visible escape. */
export function printable(text: string): string {
  UNPRINTABLE.lastIndex = 0;
  return UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, visible) : text;
}

/** Several lines meant as lines (a multi-line message): newlines and tabs stay, the rest is escaped. */
export function printableBlock(text: string): string {
  UNPRINTABLE_IN_BLOCK.lastIndex = 0;
  return UNPRINTABLE_IN_BLOCK.test(text) ? text.replace(UNPRINTABLE_IN_BLOCK, visible) : text;
}

/**
 * JSON text safe to print: the same characters as JSON escapes (`\u2028`), so that what is printed is
 * still the same JSON, byte for byte once parsed. JSON.stringify escapes C0 already; DEL, C1 and the
 * format characters it leaves as they are.
 */
export function printableJson(json: string): string {
  UNPRINTABLE.lastIndex = 0;
  return UNPRINTABLE.test(json)
    ? json.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}
