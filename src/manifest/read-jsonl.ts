// JSONL manifests, one pass: a line is read, judged and yielded before the next is read.
import { createInterface } from 'node:readline';
import { fieldWithReplacement, InvalidUtf8Lines } from './invalid-utf8-lines.js';
import { invalidUtf8Reason } from './utf8-check.js';
import type { PricingTable } from '../core/pricing.js';
import { draftFromJsonLine } from './jsonl-line.js';
import { asManifestFileError, openManifestStream } from './manifest-file.js';
import { registerHandedOver, type RowDeferral } from './deferred-row.js';
import { finishRow, IdRegistry } from './row-assembly.js';
import type { ManifestEntry } from './types.js';

/** With `deferral`, the rows it wants are handed to it instead of judged and yielded. */
export async function* readJsonl(
  file: string,
  pricing: PricingTable,
  deferral?: RowDeferral,
): AsyncGenerator<ManifestEntry> {
  const input = await openManifestStream(file);
  const invalidUtf8 = new InvalidUtf8Lines(input); // before readline: it sees each chunk first
  const lines = createInterface({ input, crlfDelay: Infinity });
  invalidUtf8.count(lines);
  let readError: unknown;
  input.on('error', (err) => {
    readError = err;
    lines.close();
  });
  const ids = new IdRegistry();
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      const text = lineNo === 1 && line.startsWith('\uFEFF') ? line.slice(1) : line;
      if (text.trim() === '') continue;
      const draft = draftFromJsonLine(text, lineNo);
      const invalid = invalidUtf8.take(lineNo);
      if (invalid !== undefined) {
        const field = fieldWithReplacement(text);
        yield finishRow(
          file,
          {
            ...draft,
            issues: [
              { ...(field !== undefined ? { field } : {}), reason: invalidUtf8Reason(invalid) },
              ...draft.issues,
            ],
          },
          ids,
          pricing,
        );
        continue;
      }
      if (deferral?.wants()) {
        deferral.take(file, null, {
          cells: [text],
          line: lineNo,
          from: 0,
          to: 0,
          firstLine: registerHandedOver(ids, draft.id, lineNo),
        });
        continue;
      }
      yield finishRow(file, draft, ids, pricing);
    }
  } catch (err) {
    throw asManifestFileError(file, err);
  } finally {
    lines.close();
    input.destroy();
  }
  if (readError !== undefined) throw asManifestFileError(file, readError);
}
