// Worker thread: reads and validates manifests while the main thread inserts into SQLite, so a large
// ingest uses both cores. Posts compact rows (no request objects: their canonical JSON text suffices).
import { parentPort, workerData } from 'node:worker_threads';
import type { PricingTable } from '../core/pricing.js';
import { scanManifests } from './scan-manifests.js';
import { ColumnBuilder, SCAN_BATCH, MAX_UNACKED_BATCHES, type ScanMessage } from './scan-protocol.js';
import type { InvalidEntry } from './scan-manifests.js';

const { files, pricing } = workerData as { files: string[]; pricing: PricingTable };
const port = parentPort!;

let unacked = 0;
let wakeOnAck: (() => void) | undefined;
port.on('message', () => {
  unacked--;
  wakeOnAck?.();
  wakeOnAck = undefined;
});

const valid = new ColumnBuilder(SCAN_BATCH);
let invalid: InvalidEntry[] = [];
const post = (message: ScanMessage): void => port.postMessage(message);

function flush(): void {
  if (valid.size === 0 && invalid.length === 0) return;
  const columns = valid.take();
  post({ type: 'batch', valid: columns, invalid });
  unacked++;
  invalid = [];
}

async function main(): Promise<void> {
  const summary = await scanManifests(files, pricing, {
    valid: (row) => {
      valid.add(row);
      if (valid.size >= SCAN_BATCH) flush();
    },
    invalid: (entry) => {
      invalid.push(entry);
      if (invalid.length >= SCAN_BATCH) flush();
    },
    // Back-pressure: the reader pauses while the main thread is behind.
    pause: () => (unacked >= MAX_UNACKED_BATCHES ? new Promise<void>((resolve) => { wakeOnAck = resolve; }) : undefined),
  });
  flush();
  post({ type: 'done', summary });
}

main().catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
