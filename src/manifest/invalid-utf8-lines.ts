// Which lines of a JSONL manifest hold bytes that are not UTF-8, numbered as readline numbers them.
// Attached to the byte stream before readline is: on each chunk, readline has so far emitted exactly
// the lines that ended in earlier chunks, so a bad byte's line is that count plus the line breaks
// before it in its chunk (readline's breaks: LF, CRLF, and a lone CR).
import type { Readable } from 'node:stream';
import type { Interface } from 'node:readline';
import { Utf8Checker, type InvalidByte } from './utf8-check.js';

const LF = 0x0a;
const CR = 0x0d;

export class InvalidUtf8Lines {
  private readonly checker = new Utf8Checker();
  private readonly byLine = new Map<number, InvalidByte>();
  private linesEmitted = 0;
  private chunkStart = 0;
  /** The previous chunk ended with CR: a LF first in this chunk ends no new line. */
  private pendingCr = false;

  /** Call before readline's interface is created on `input`, then `count(lines)`. */
  constructor(input: Readable) {
    input.on('data', (chunk: Buffer) => this.feed(chunk));
    input.on('end', () => {
      const last = this.checker.end();
      if (last) this.mark(this.linesEmitted + 1, last);
    });
  }

  count(lines: Interface): void {
    lines.on('line', () => this.linesEmitted++);
  }

  /** The first invalid byte of line `line` (1-based), once; undefined for a valid line. */
  take(line: number): InvalidByte | undefined {
    if (this.byLine.size === 0) return undefined;
    const invalid = this.byLine.get(line);
    if (invalid !== undefined) this.byLine.delete(line);
    return invalid;
  }

  private feed(chunk: Buffer): void {
    const found = this.checker.feed(chunk);
    if (found.length > 0) {
      let breaks = 0;
      let at = this.pendingCr && chunk[0] === LF ? 1 : 0;
      for (const invalid of found) {
        const end = invalid.offset - this.chunkStart; // negative: it began in the previous chunk
        for (; at < end; at++) {
          const byte = chunk[at];
          if (byte === LF) breaks++;
          else if (byte === CR) {
            breaks++;
            if (chunk[at + 1] === LF) at++;
          }
        }
        this.mark(this.linesEmitted + breaks + 1, invalid);
      }
    }
    this.chunkStart += chunk.length;
    this.pendingCr = chunk.length > 0 && chunk[chunk.length - 1] === CR;
  }

  private mark(line: number, invalid: InvalidByte): void {
    if (!this.byLine.has(line)) this.byLine.set(line, invalid);
  }
}

/** The field of a JSON line whose text holds U+FFFD (where the bad bytes were), when it is one. */
export function fieldWithReplacement(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const path: string[] = [];
  for (let depth = 0; depth < 2 && typeof value === 'object' && value !== null && !Array.isArray(value); depth++) {
    const holders = Object.entries(value).filter(
      ([key, inner]) => key.includes('\ufffd') || JSON.stringify(inner).includes('\ufffd'),
    );
    if (holders.length !== 1 || holders[0]![0].includes('\ufffd')) break;
    path.push(holders[0]![0]);
    value = holders[0]![1];
  }
  return path.length > 0 ? path.join('.') : undefined;
}
