// A CSV record's text, read back from the file by its byte range: only for the rows that are reported.
import { closeSync, openSync, readSync } from 'node:fs';
import { isBlank } from './csv-recovery.js';
import { RAW_TEXT_LIMIT } from './types.js';

/** Reads at most what an error message keeps (RAW_TEXT_LIMIT characters of up to 4 bytes each). */
export class RecordTexts {
  private fd: number | undefined;

  constructor(private readonly file: string) {}

  /** The record between two byte offsets of the file, without the skipped lines before it or its line break. */
  record(start: number, end: number): string {
    return cleanRaw(this.read(start, end));
  }

  private read(start: number, end: number): string {
    this.fd ??= openSync(this.file, 'r');
    const buffer = Buffer.alloc(Math.min(end - start, RAW_TEXT_LIMIT * 4 + 4));
    const length = readSync(this.fd, buffer, 0, buffer.length, start);
    return buffer.toString('utf8', 0, length);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A record's bytes carry the lines csv-parse skipped before it (blank, or commas only) and its line break. */
function cleanRaw(raw: string): string {
  let start = 0;
  for (
    let newline = raw.indexOf('\n');
    newline !== -1 && isBlank(raw.slice(start, newline));
    newline = raw.indexOf('\n', start)
  ) {
    start = newline + 1;
  }
  let end = raw.length;
  while (end > start && (raw[end - 1] === '\n' || raw[end - 1] === '\r')) end--;
  return start === 0 && end === raw.length ? raw : raw.slice(start, end);
}
