// CSV manifests, one streaming pass. A syntax error ends that parse; reading resumes with a fresh
// parse on the line after the broken row's first line (see csv-recovery.ts).
import type { CsvError } from 'csv-parse';
import type { PricingTable } from '../core/pricing.js';
import { readCsvHeader, type CsvHeader } from './csv-header.js';
import { csvRecords, MAX_CSV_RECORD_BYTES } from './csv-records.js';
import { RecordTexts } from './csv-record-text.js';
import { explainBrokenLine, nextNonBlankLine } from './csv-recovery.js';
import { csvDraftId, draftFromCsvRecord } from './csv-row.js';
import { registerHandedOver, type RowDeferral } from './deferred-row.js';
import { asManifestFileError } from './manifest-file.js';
import { finishRow, IdRegistry } from './row-assembly.js';
import { truncateRaw, type ManifestEntry, type RowIssue } from './types.js';
import { invalidUtf8Reason, type InvalidByte } from './utf8-check.js';

/** With `deferral`, the data rows it wants are handed to it instead of judged and yielded. */
export async function* readCsv(
  file: string,
  pricing: PricingTable,
  deferral?: RowDeferral,
  metaColumns: readonly string[] = [],
): AsyncGenerator<ManifestEntry> {
  const ids = new IdRegistry();
  const texts = new RecordTexts(file);
  try {
    yield* readRecords(file, pricing, ids, texts, deferral, metaColumns);
  } finally {
    texts.close();
  }
}

async function* readRecords(
  file: string,
  pricing: PricingTable,
  ids: IdRegistry,
  texts: RecordTexts,
  deferral: RowDeferral | undefined,
  metaColumns: readonly string[],
): AsyncGenerator<ManifestEntry> {
  let header: CsvHeader | undefined;
  let startOffset = 0;
  let linesBefore = 0;
  for (;;) {
    // End of the last complete record: where a broken one begins.
    let goodUntilOffset = startOffset;
    let goodUntilLine = linesBefore;
    let syntaxError: CsvError | undefined;
    try {
      for await (const batch of csvRecords(file, startOffset)) {
        for (const event of batch) {
          if (event.type === 'syntax-error') {
            syntaxError = event.error;
            break;
          }
          const { cells, endLine, startByte, endByte, invalidUtf8 } = event.record;
          const from = startOffset + startByte;
          const to = startOffset + endByte;
          const raw = (): string => texts.record(from, to);
          const line = linesBefore + endLine - lineBreaksIn(cells);
          goodUntilOffset = startOffset + endByte;
          goodUntilLine = linesBefore + endLine;
          if (header === undefined) {
            if (invalidUtf8 !== undefined) {
              yield headerError(file, line, raw(), [{ reason: invalidUtf8Reason(invalidUtf8) }]);
              return;
            }
            const read = readCsvHeader(cells, metaColumns);
            if (!read.header) {
              yield headerError(file, line, raw(), read.issues);
              return;
            }
            header = read.header;
            continue;
          }
          const entry = dataRow({ file, pricing, ids, deferral }, header, { cells, line, from, to, raw, invalidUtf8 });
          if (entry) yield entry;
        }
      }
    } catch (err) {
      throw asManifestFileError(file, err);
    }
    if (syntaxError === undefined) {
      if (header === undefined) {
        yield headerError(file, 1, '', [
          { reason: 'the CSV manifest has no header row (required columns: id, kind, model, prompt)' },
        ]);
      }
      return;
    }
    const broken = await nextNonBlankLine(file, goodUntilOffset);
    if (broken === undefined) return;
    const line = goodUntilLine + broken.blankLines + 1;
    const idColumn = header?.index.get('id') ?? 0;
    const { id, issue } = explainBrokenLine(broken.text, idColumn, syntaxError, MAX_CSV_RECORD_BYTES);
    if (header === undefined) {
      yield headerError(file, line, broken.text, [issue]);
      return;
    }
    yield finishRow(
      file,
      { line, raw: broken.text, ...(id !== undefined ? { id: { value: id, field: 'id' } } : {}), issues: [issue] },
      ids,
      pricing,
    );
    startOffset = broken.nextOffset;
    linesBefore = line;
  }
}

interface ReadState {
  file: string;
  pricing: PricingTable;
  ids: IdRegistry;
  deferral: RowDeferral | undefined;
}

interface DataRecord {
  cells: string[];
  line: number;
  from: number;
  to: number;
  raw: () => string;
  invalidUtf8: InvalidByte | undefined;
}

/** A data record's row, judged; undefined when the deferral took it instead. */
function dataRow(state: ReadState, header: CsvHeader, record: DataRecord): ManifestEntry | undefined {
  const { file, pricing, ids, deferral } = state;
  const { cells, line, from, to, raw, invalidUtf8 } = record;
  if (invalidUtf8 !== undefined) {
    const draft = draftFromCsvRecord(header, cells, line, raw);
    const issues = [encodingIssue(header.names, cells, invalidUtf8), ...draft.issues];
    return finishRow(file, { ...draft, issues }, ids, pricing);
  }
  if (deferral?.wants()) {
    const firstLine = registerHandedOver(ids, csvDraftId(header, cells), line);
    deferral.take(file, header, { cells, line, from, to, firstLine });
    return undefined;
  }
  return finishRow(file, draftFromCsvRecord(header, cells, line, raw), ids, pricing);
}

/** The column that holds the replacement characters, when it is one column. */
function encodingIssue(names: readonly string[], cells: readonly string[], invalid: InvalidByte): RowIssue {
  const columns = cells.flatMap((cell, i) => (cell.includes('\ufffd') && names[i] !== undefined ? [names[i]!] : []));
  return { ...(columns.length === 1 ? { field: columns[0]! } : {}), reason: invalidUtf8Reason(invalid) };
}

function lineBreaksIn(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) count++;
  }
  return count;
}

function headerError(file: string, line: number, raw: string, issues: RowIssue[]): ManifestEntry {
  const errors = issues.map((i) => ({
    file,
    line,
    ...(i.field !== undefined ? { field: i.field } : {}),
    reason: i.reason,
  }));
  return { ok: false, file, line, raw: truncateRaw(raw), errors };
}
