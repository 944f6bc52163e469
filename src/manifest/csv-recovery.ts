// Recovering from a CSV syntax error: the broken row is reported by its first line and reading
// resumes on the next line, so one stray quote cannot swallow the rest of the manifest.
import { CsvError } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { openManifestStream } from './manifest-file.js';
import type { RowIssue } from './types.js';

/** Bytes of a line kept for the error report; the rest of a huge line is skipped, not stored. */
const KEPT_LINE_BYTES = 16 * 1024;

export interface PhysicalLine {
  /** The line's text without its line break (at most KEPT_LINE_BYTES of it). */
  text: string;
  /** Blank lines skipped before it. */
  blankLines: number;
  /** Byte offset just after its line break. */
  nextOffset: number;
}

/** Lines csv-parse skips as empty records: nothing but spaces and commas. */
export function isBlank(text: string): boolean {
  return /^[\s,]*$/.test(text);
}

/** The first non-blank line starting at `offset`, or undefined at the end of the file. */
export async function nextNonBlankLine(file: string, offset: number): Promise<PhysicalLine | undefined> {
  const input = await openManifestStream(file, offset);
  let position = offset;
  let blankLines = 0;
  let kept: Buffer[] = [];
  let keptBytes = 0;
  const finishLine = (): string => {
    const text = Buffer.concat(kept)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .replace(/\r$/, '');
    kept = [];
    keptBytes = 0;
    return text;
  };
  const keep = (part: Buffer): void => {
    if (keptBytes >= KEPT_LINE_BYTES) return;
    const slice = part.subarray(0, KEPT_LINE_BYTES - keptBytes);
    kept.push(Buffer.from(slice));
    keptBytes += slice.length;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let from = 0;
      for (let newline = chunk.indexOf(10, from); newline !== -1; newline = chunk.indexOf(10, from)) {
        keep(chunk.subarray(from, newline));
        const text = finishLine();
        if (!isBlank(text)) return { text, blankLines, nextOffset: position + newline + 1 };
        blankLines++;
        from = newline + 1;
      }
      keep(chunk.subarray(from));
      position += chunk.length;
    }
    const text = finishLine();
    return isBlank(text) ? undefined : { text, blankLines, nextOffset: position };
  } finally {
    input.destroy();
  }
}

/**
 * The broken row's id (best effort) and what is wrong with it. The streaming parser fails where it
 * stumbles, which may be lines later (an unclosed quote runs on until some later quote); the row's
 * own first line, parsed alone, names the local cause.
 */
export function explainBrokenLine(
  text: string,
  idColumn: number,
  streamError: CsvError,
  maxRecordBytes: number,
): { id?: string; issue: RowIssue } {
  let localError = streamError;
  try {
    parseSync(text, { relax_column_count: true });
  } catch (err) {
    if (err instanceof CsvError) localError = err;
  }
  const id = idOfBrokenLine(text, idColumn);
  return { ...(id !== undefined ? { id } : {}), issue: csvSyntaxIssue(localError, maxRecordBytes) };
}

/** A reason a user can act on; csv-parse's own text counts lines from where it was restarted. */
function csvSyntaxIssue(err: CsvError, maxRecordBytes: number): RowIssue {
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return { reason: 'bad CSV: a quote opened in this row is never closed' };
    case 'CSV_INVALID_CLOSING_QUOTE':
      return {
        reason:
          'bad CSV: a closing quote must be followed by a comma or the end of the line (inside a quoted cell, write a quote as "")',
      };
    case 'INVALID_OPENING_QUOTE':
      return {
        reason: 'bad CSV: a quote inside an unquoted cell (quote the whole cell and double the quotes inside it)',
      };
    case 'CSV_MAX_RECORD_SIZE':
      return { reason: `bad CSV: the row is longer than ${maxRecordBytes} bytes (is a quote left open?)` };
    default:
      return { reason: `bad CSV: ${err.message.replace(/\s*(?:at|on) line \d+/g, '')}` };
  }
}

/** Best effort: the id cell of a line csv-parse refused, read leniently, so the report can name the row. */
function idOfBrokenLine(text: string, idColumn: number): string | undefined {
  // The line alone, then with a closing quote added, for a cell whose quote was never closed.
  for (const attempt of [text, `${text}"`]) {
    try {
      const [cells] = parseSync(attempt, { relax_quotes: true, relax_column_count: true }) as string[][];
      const id = cells?.[idColumn];
      return id !== undefined && id.trim() !== '' ? id : undefined;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}
