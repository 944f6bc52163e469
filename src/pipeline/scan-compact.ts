// Scans manifests into compact rows: in a worker thread for large manifests (parsing and SQLite
// inserts then run on two cores), in this thread for small ones (a worker costs ~40 ms to start).
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { PricingTable } from '../core/pricing.js';
import { scanManifests, type InvalidEntry, type ScanSummary } from './scan-manifests.js';
import { compactRow, rowsOf, type CompactRow, type ScanMessage } from './scan-protocol.js';

export const WORKER_THRESHOLD_BYTES = 8 << 20;

export interface CompactHandlers {
  valid(row: CompactRow): void;
  invalid(entry: InvalidEntry): void;
}

function totalBytes(files: readonly string[]): number {
  let total = 0;
  for (const file of files) {
    try {
      total += statSync(file).size;
    } catch {
      // The reader reports a missing file with its name; no need to here.
    }
  }
  return total;
}

/** The worker runs compiled JavaScript; under a TypeScript test runner the sources are .ts. */
const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './scan-worker.ts' : './scan-worker.js', import.meta.url);

export async function scanCompact(files: readonly string[], pricing: PricingTable, handlers: CompactHandlers,
  options: { useWorker?: boolean } = {}): Promise<ScanSummary> {
  const useWorker = options.useWorker ?? (!import.meta.url.endsWith('.ts') && totalBytes(files) >= WORKER_THRESHOLD_BYTES);
  if (!useWorker) {
    return scanManifests(files, pricing, { valid: (row) => handlers.valid(compactRow(row)), invalid: handlers.invalid });
  }
  const worker = new Worker(workerUrl, { workerData: { files, pricing } });
  try {
    return await new Promise<ScanSummary>((resolve, reject) => {
      worker.on('message', (message: ScanMessage) => {
        try {
          if (message.type === 'batch') {
            for (const row of rowsOf(message.valid)) handlers.valid(row);
            for (const entry of message.invalid) handlers.invalid(entry);
            worker.postMessage('ack');
          } else if (message.type === 'done') {
            resolve(message.summary);
          } else {
            reject(new Error(message.message));
          }
        } catch (err) {
          reject(err);
        }
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`manifest reader stopped unexpectedly (exit ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
}
