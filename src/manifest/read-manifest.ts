// The one entry point: a manifest file, whatever its format, as a stream of checked rows.
import { extname } from 'node:path';
import type { PricingTable } from '../core/pricing.js';
import { readCsv } from './read-csv.js';
import { readJsonl } from './read-jsonl.js';
import type { RowDeferral } from './deferred-row.js';
import type { ManifestEntry } from './types.js';

export interface ReadOptions {
  pricing: PricingTable;
  /** Data rows handed over unjudged (deferred-row.ts). */
  deferral?: RowDeferral;
  /** CSV columns kept as the row's metadata, never sent (--meta-columns). */
  metaColumns?: readonly string[];
}

type Reader = (
  file: string,
  pricing: PricingTable,
  deferral?: RowDeferral,
  metaColumns?: readonly string[],
) => AsyncGenerator<ManifestEntry>;

const READERS: Readonly<Record<string, Reader>> = {
  '.jsonl': readJsonl,
  '.ndjson': readJsonl,
  '.csv': readCsv,
};

/**
 * Every row of the manifest, in file order, each either valid or with all its problems, in one pass
 * that holds no more than the ids seen so far. Throws at once for an unknown extension; a missing or
 * unreadable file throws (naming it) when iteration starts.
 */
export function readManifest(file: string, options: ReadOptions): AsyncIterable<ManifestEntry> {
  const extension = extname(file).toLowerCase();
  const reader = Object.hasOwn(READERS, extension) ? READERS[extension] : undefined;
  if (!reader) {
    throw new Error(
      `cannot read manifest ${file}: unknown format '${extension || '(no extension)'}'; use .jsonl, .ndjson or .csv`,
    );
  }
  return reader(file, options.pricing, options.deferral, options.metaColumns);
}
