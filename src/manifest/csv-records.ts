// csv-parse, driven chunk by chunk, its records taken as they are emitted. Two reasons for the
// shape: a stream that fails discards records it had buffered before the failure (so nothing may
// sit in its buffer), and `on_record` or `info: true` build two info objects per record, which
// halves throughput; instead each record's position is read from the parser's live `info`.
import { CsvError, parse, type Options } from 'csv-parse';
import { LineCounter } from './line-counter.js';
import { openManifestStream } from './manifest-file.js';
import { Utf8Checker, type InvalidByte } from './utf8-check.js';

/** Bounds the memory one runaway quoted cell can take before it is reported as an error. */
export const MAX_CSV_RECORD_BYTES = 16 * 1024 * 1024;

// No `raw: true`: it copies every byte into a second buffer (about 15 % of parsing). A record's text
// is read back from the file by its byte range, and only for the rare row that is reported.
const PARSE_OPTIONS: Options = {
  bom: true,
  // Column counts are checked per row against the header, so a short or long row is that row's error.
  relax_column_count: true,
  skip_empty_lines: true,
  // Rows of nothing but commas are what spreadsheets write for empty lines.
  skip_records_with_empty_values: true,
  max_record_size: MAX_CSV_RECORD_BYTES,
};

export interface CsvRecord {
  cells: string[];
  /** Physical line the record ends on, counted from where this parse started (1-based). */
  endLine: number;
  /** Bytes from where this parse started to the end of the previous record (skipped lines included). */
  startByte: number;
  /** Bytes from where this parse started to just after the record's line break. */
  endByte: number;
  /** The record's first byte that is not UTF-8 (csv-parse decoded it as U+FFFD). */
  invalidUtf8?: InvalidByte;
}

export type CsvEvent = { type: 'record'; record: CsvRecord } | { type: 'syntax-error'; error: CsvError };

/**
 * The records of `file` from byte `startOffset`, in order, in batches (one per chunk read). A syntax
 * error is the last event; other failures (I/O) throw. Holds at most one chunk's records at a time.
 */
export async function* csvRecords(file: string, startOffset: number): AsyncGenerator<CsvEvent[]> {
  const input = await openManifestStream(file, startOffset);
  const ready: CsvEvent[] = [];
  const lines = new LineCounter();
  let failure: unknown;
  const settle = (err: Error | null | undefined, resolve: () => void): void => {
    if (err) failure ??= err;
    resolve();
  };
  const utf8 = new Utf8Checker();
  // Invalid bytes found but not yet placed in a record, in file order (usually none).
  let invalid: InvalidByte[] = [];
  let nextInvalid = 0;
  const invalidBefore = (start: number, end: number): InvalidByte | undefined => {
    let first: InvalidByte | undefined;
    while (nextInvalid < invalid.length && invalid[nextInvalid]!.offset < end) {
      const candidate = invalid[nextInvalid++]!;
      if (candidate.offset >= start) first ??= candidate;
    }
    if (nextInvalid === invalid.length) {
      invalid = [];
      nextInvalid = 0;
    }
    return first;
  };
  const parser = parse(PARSE_OPTIONS);
  parser.on('error', (err) => settle(err, () => {}));
  // A flowing stream with an empty buffer emits each record synchronously from inside `write`,
  // while `parser.info` still describes that record; the record count proves it for every record.
  let received = 0;
  let previousEnd = 0;
  parser.on('data', (record: string[]) => {
    received++;
    if (parser.info.records !== received) {
      failure ??= new Error(
        `csv-parse emitted record ${received} late (parser at record ${parser.info.records}): cannot place it`,
      );
      return;
    }
    const endByte = parser.info.bytes;
    const csvRecord: CsvRecord = {
      cells: record,
      endLine: lines.lineEndingAt(endByte),
      startByte: previousEnd,
      endByte,
    };
    if (invalid.length > 0) {
      const invalidUtf8 = invalidBefore(previousEnd, endByte);
      if (invalidUtf8 !== undefined) csvRecord.invalidUtf8 = invalidUtf8;
    }
    ready.push({ type: 'record', record: csvRecord });
    previousEnd = endByte;
  });
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      lines.feed(chunk);
      // Checked before the parser sees the chunk: its records are emitted from inside write().
      const found = utf8.feed(chunk);
      if (found.length > 0) invalid.push(...found);
      await new Promise<void>((resolve) => parser.write(chunk, (err) => settle(err, resolve)));
      if (ready.length > 0) yield ready.splice(0);
      if (failure !== undefined) break;
    }
    if (failure === undefined) {
      const last = utf8.end();
      if (last) invalid.push(last);
      await new Promise<void>((resolve) => parser.end((err?: Error | null) => settle(err, resolve)));
      if (ready.length > 0) yield ready.splice(0);
    }
    if (failure instanceof CsvError) yield [{ type: 'syntax-error', error: failure }];
    else if (failure !== undefined) throw failure;
  } finally {
    input.destroy();
    parser.destroy();
  }
}
