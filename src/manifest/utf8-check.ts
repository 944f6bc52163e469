// Manifests must be UTF-8. A Latin-1 / Windows-1252 file from a spreadsheet (é as the one byte 0xE9)
// would otherwise be decoded with U+FFFD in place of each such byte and sent like that without a word.
// Each chunk is checked whole by the native isUtf8; only a chunk that fails is scanned byte by byte to
// find where. A character split across two chunks is checked across the boundary; a U+FFFD that the
// file itself holds (EF BF BD) is valid UTF-8 and passes.
import { isUtf8 } from 'node:buffer';

/** A byte that does not belong to a valid UTF-8 sequence: its offset in the stream and its value. */
export interface InvalidByte {
  offset: number;
  byte: number;
}

/** Bytes of the sequence a lead byte starts, or 0 when it cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The allowed range of the byte after a lead byte (overlongs, surrogates and > U+10FFFF excluded). */
function secondByteOk(lead: number, second: number): boolean {
  if (lead === 0xe0) return second >= 0xa0 && second <= 0xbf;
  if (lead === 0xed) return second >= 0x80 && second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90 && second <= 0xbf;
  if (lead === 0xf4) return second >= 0x80 && second <= 0x8f;
  return second >= 0x80 && second <= 0xbf;
}

/** Index of the first byte in [from, to) that starts no valid sequence ending by `to`, or -1. */
export function firstInvalidByte(buf: Buffer, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const lead = buf[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length = sequenceLength(lead);
    if (length === 0 || i + length > to || !secondByteOk(lead, buf[i + 1]!)) return i;
    for (let k = 2; k < length; k++) if ((buf[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return -1;
}

/** Where the incomplete sequence at the end of `buf` starts (its last 1-3 bytes), or buf.length. */
function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= 3 && back <= buf.length; back++) {
    const byte = buf[buf.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const length = sequenceLength(byte);
    return length > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

/** Whether the bytes so far (a lead byte, then some of its sequence) can still make a valid character. */
function validSoFar(bytes: Buffer): boolean {
  const lead = bytes[0]!;
  if (sequenceLength(lead) < 2) return false;
  if (bytes.length > 1 && !secondByteOk(lead, bytes[1]!)) return false;
  for (let k = 2; k < bytes.length; k++) if ((bytes[k]! & 0xc0) !== 0x80) return false;
  return true;
}

/** Fed a byte stream chunk by chunk, in order; tells the invalid bytes, at most one per line. */
export class Utf8Checker {
  private carry: Buffer = Buffer.alloc(0);
  private position = 0;

  /** The invalid bytes of this chunk (offsets in the whole stream); [] for a valid chunk, the usual case. */
  feed(chunk: Buffer): InvalidByte[] {
    const start = this.position;
    this.position += chunk.length;
    const found: InvalidByte[] = [];
    let from = 0;
    if (this.carry.length > 0) {
      const carry = this.carry;
      this.carry = Buffer.alloc(0);
      const need = sequenceLength(carry[0]!);
      const joined = Buffer.concat([carry, chunk.subarray(0, need - carry.length)]);
      if (!validSoFar(joined)) {
        found.push({ offset: start - carry.length, byte: carry[0]! });
      } else if (joined.length < need) {
        this.carry = joined; // a chunk of one or two bytes: the character goes on in the next one
        return found;
      } else {
        from = need - carry.length;
      }
    }
    const tail = from + incompleteTail(chunk.subarray(from));
    if (tail < chunk.length) this.carry = Buffer.from(chunk.subarray(tail));
    if (from >= tail || isUtf8(chunk.subarray(from, tail))) return found;
    return [...found, ...scan(chunk, from, tail, start)];
  }

  /** At the end of the stream: a sequence left incomplete is invalid. */
  end(): InvalidByte | undefined {
    if (this.carry.length === 0) return undefined;
    const invalid = { offset: this.position - this.carry.length, byte: this.carry[0]! };
    this.carry = Buffer.alloc(0);
    return invalid;
  }
}

/** The first invalid byte of each line in [from, to) of a chunk known to hold one. */
function scan(chunk: Buffer, from: number, to: number, chunkStart: number): InvalidByte[] {
  const found: InvalidByte[] = [];
  let at = from;
  while (at < to) {
    const bad = firstInvalidByte(chunk, at, to);
    if (bad === -1) break;
    found.push({ offset: chunkStart + bad, byte: chunk[bad]! });
    const newline = chunk.indexOf(10, bad);
    if (newline === -1 || newline >= to) break;
    at = newline + 1;
    if (isUtf8(chunk.subarray(at, to))) break;
  }
  return found;
}

const hex = (byte: number): string => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** The reason a row (or the header) is refused, with what the file most likely is. */
export function invalidUtf8Reason(invalid: InvalidByte): string {
  if (invalid.offset <= 1 && (invalid.byte === 0xff || invalid.byte === 0xfe)) {
    return `not valid UTF-8 (byte ${hex(invalid.byte)} at the start: a UTF-16 byte order mark); save the file as UTF-8`;
  }
  return `not valid UTF-8 (byte ${hex(invalid.byte)}); save the file as UTF-8 — it looks like Latin-1/Windows-1252`;
}
