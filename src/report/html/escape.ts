// Pure: outside text (ids, error messages, model names, paths) as HTML text or attribute values. Control
// characters are shown escaped (core/printable.ts), never passed to the page.
import { printable, printableBlock } from '../../core/printable.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element's content or a quoted attribute: every character that could end either is an entity. */
export function esc(value: unknown): string {
  if (value === null || value === undefined) return '';
  return printable(String(value)).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** The same for a block of lines shown as lines (a manifest row with line breaks in a cell): newlines and tabs stay. */
export function escBlock(value: string): string {
  return printableBlock(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
