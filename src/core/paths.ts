// Output file names derived from item ids. Ids come from users' manifests and may hold anything
// ('../../etc/passwd', '/abs', 'CON', emoji); nothing derived from them may land outside --out.

import { createHash } from 'node:crypto';
import path from 'node:path';

const MAX_STEM_BYTES = 180;
const HASHED_PREFIX_CHARS = 140;
const HASH_HEX_CHARS = 32;
/** Device names Windows reserves whatever the extension ("nul.mp4" too), compared case-insensitively. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * One safe file-name component for any id, reversible and collision-free:
 * 1. the id's UTF-8 bytes (a lone surrogate as its 3-byte WTF-8 form, so distinct ids stay distinct);
 * 2. bytes of [A-Za-z0-9_.-] are kept, every other byte becomes %XX (so '%' is %25, '/' is %2F);
 * 3. a leading '.' becomes %2E (no hidden files, no '.' or '..'), and so does a trailing '.' (Windows
 *    drops trailing dots);
 * 4. if the part before the first '.' is a Windows device name (CON, NUL, COM1, ...), its first
 *    character becomes %XX;
 * 5. the empty id is '%', which no other id produces (every other '%' is followed by two hex digits);
 * 6. a stem longer than 180 bytes becomes its first 140 characters + '~' + 32 hex of sha256 of the
 *    id's bytes. '~' is never kept by step 2, so a hashed stem cannot equal an unhashed one.
 * Decoding an unhashed stem: '%' is the empty id, else turn each %XX back into its byte and read UTF-8.
 */
export function safeFileStem(itemId: string): string {
  if (itemId === '') return '%';
  const bytes = wtf8(itemId);
  let stem = '';
  for (const byte of bytes) stem += isKept(byte) ? String.fromCharCode(byte) : percent(byte);
  if (stem.startsWith('.')) stem = `%2E${stem.slice(1)}`;
  if (stem.endsWith('.')) stem = `${stem.slice(0, -1)}%2E`;
  const base = stem.split('.', 1)[0]!;
  if (WINDOWS_RESERVED.test(base)) stem = percent(stem.charCodeAt(0)) + stem.slice(1);
  if (stem.length > MAX_STEM_BYTES) {
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, HASH_HEX_CHARS);
    stem = `${stem.slice(0, HASHED_PREFIX_CHARS)}~${hash}`;
  }
  return stem;
}

/** `<outDir>/<safe stem><extension>`, checked to be inside outDir. */
export function outputPathFor(outDir: string, itemId: string, extension: string): string {
  if (!/^(\.[A-Za-z0-9_-]+)*$/.test(extension)) {
    throw new Error(`output extension must look like '.mp4', got '${extension}'`);
  }
  const candidate = path.join(outDir, safeFileStem(itemId) + extension);
  assertInside(outDir, candidate);
  return candidate;
}

/** Throws unless `candidate` names an entry strictly inside `outDir` (lexically; symlinks are not followed). */
export function assertInside(outDir: string, candidate: string): void {
  const relative = path.relative(path.resolve(outDir), path.resolve(candidate));
  const escapes =
    relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (escapes) throw new Error(`refusing to write '${candidate}': it is not inside the output directory '${outDir}'`);
}

function isKept(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x5f ||
    byte === 0x2d ||
    byte === 0x2e
  ); // _ - .
}

function percent(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** UTF-8, except that a lone surrogate is encoded as itself (WTF-8) instead of as U+FFFD. */
function wtf8(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x80) out.push(code);
    else if (code < 0x800) out.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else out.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Buffer.from(out);
}
