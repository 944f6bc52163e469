// Small pure formatters of the live view: durations, counts, money, bars, and text cut to a width.

/** `12s`, `4m05s`, `2h10m`, `3d04h`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/** 2,300 */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** $18.40 (cents; four decimals under a dollar, where cents say nothing). */
export function money(usd: number): string {
  const abs = Math.abs(usd);
  const digits = abs > 0 && abs < 1 ? 4 : 2;
  return `${usd < 0 ? '-' : ''}$${abs.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (part / whole) * 100;
  return `${p >= 100 ? 100 : Math.floor(p)}%`;
}

export interface BarGlyphs {
  full: string;
  partial: string;
  empty: string;
}
export const UNICODE_BAR: BarGlyphs = { full: '█', partial: '▒', empty: '░' };
export const ASCII_BAR: BarGlyphs = { full: '#', partial: '+', empty: '-' };

/** A bar of `width` cells: `done` share full, then `partial` share half-shaded, the rest empty. */
export function bar(width: number, done: number, partial: number, whole: number, glyphs: BarGlyphs): string {
  if (width <= 0) return '';
  const share = (n: number): number => (whole > 0 ? Math.max(0, Math.min(1, n / whole)) : 0);
  const full = Math.floor(share(done) * width);
  const half = Math.min(width - full, Math.floor(share(done + partial) * width) - full);
  return (
    glyphs.full.repeat(full) +
    glyphs.partial.repeat(Math.max(0, half)) +
    glyphs.empty.repeat(width - full - Math.max(0, half))
  );
}

/** Terminal cells a character takes: 2 for East Asian wide and emoji ranges, else 1 (an overestimate is safe). */
function cells(codePoint: number): number {
  return codePoint >= 0x1100 &&
    (codePoint <= 0x115f ||
      (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
      (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
      (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
      (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
      (codePoint >= 0xff00 && codePoint <= 0xff60) ||
      (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
      codePoint >= 0x1f000)
    ? 2
    : 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += cells(char.codePointAt(0)!);
  return width;
}

/** The text cut to at most `width` cells, ending in `…` when cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = cells(char.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/**
 * Parts joined by ` · `, dropping optional parts from the end until the line fits, then cut.
 * The first part always stays.
 */
export function joinFit(parts: ReadonlyArray<string | undefined>, width: number, separator = ' · '): string {
  const kept = parts.filter((p): p is string => p !== undefined && p !== '');
  while (kept.length > 1 && displayWidth(kept.join(separator)) > width) kept.pop();
  return fit(kept.join(separator), width);
}
