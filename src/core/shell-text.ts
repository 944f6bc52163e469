// Pure: untrusted text (ids, paths, prompts) made safe to print in advice a user copies into a shell.
import { printable } from './printable.js';

/**
 * An id or path as it can be typed back into a shell: plain when safe, else single-quoted, control characters escaped.
 */
export function quoteArg(text: string): string {
  if (/^[\w./:@%+=,-]+$/.test(text)) return text;
  return `'${printable(text).replace(/'/g, `'\\''`)}'`;
}
