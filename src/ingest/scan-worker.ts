// Worker thread: reads and validates manifests while the main thread inserts into SQLite, so a large
// ingest uses both cores. Posts compact rows (no request objects: their canonical JSON text suffices).
// Judging a row costs about twice what inserting it does, so the main thread would wait half the time:
// when it has (nearly) caught up, the next batch of rows goes to it unjudged (deferred-row.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { RowDeferral } from '../manifest/deferred-row.js';
import { scanManifests, type InvalidEntry } from './scan-manifests.js';
import {
  ColumnBuilder,
  DeferredBuilder,
  SCAN_BATCH,
  MAX_BACKLOG_BATCHES,
  type ScanMessage,
  type ScanWorkerData,
} from './scan-protocol.js';

const { files, pricing, handled, deferral: policy, metaColumns } = workerData as ScanWorkerData;
const port = parentPort!;
/**
 * Batches the main thread is done with, counted there as it goes: fresher than its acks, which wait for this thread's
 * event loop.
 */
const handledBatches = new Int32Array(handled);
/** How far behind the main thread may be for the next batch to be handed to it unjudged. */
const MAX_BACKLOG_TO_DEFER = 1;

let posted = 0;
/** Batches posted that the main thread has not handled yet. */
const backlog = (): number => posted - Atomics.load(handledBatches, 0);
let wakeOnAck: (() => void) | undefined;
// An ack only wakes the reader: the backlog itself is read from the shared counter.
port.on('message', () => {
  wakeOnAck?.();
  wakeOnAck = undefined;
});

const valid = new ColumnBuilder(SCAN_BATCH);
let invalid: InvalidEntry[] = [];
const deferred = new DeferredBuilder(SCAN_BATCH);
let deferring = false;

function post(message: ScanMessage): void {
  port.postMessage(message);
  posted++;
}

// Batches leave in file order: the rows of one kind are posted before a row of the other kind is kept.
function flushJudged(): void {
  if (valid.size === 0 && invalid.length === 0) return;
  if (policy === 'alternate') deferring = true;
  else if (policy === 'adaptive') deferring = backlog() <= MAX_BACKLOG_TO_DEFER;
  post({ type: 'batch', valid: valid.take(), invalid });
  invalid = [];
}

function flushDeferred(): void {
  if (deferred.size === 0) return;
  post({ type: 'deferred', rows: deferred.take() });
  deferring = false;
}

const deferral: RowDeferral = {
  wants: () => deferring,
  take: (file, layout, row) => {
    flushJudged();
    if (!deferred.fits(file, layout)) flushDeferred();
    deferred.add(file, layout, row);
    if (deferred.size >= SCAN_BATCH) flushDeferred();
  },
};

async function main(): Promise<void> {
  const summary = await scanManifests(
    files,
    pricing,
    {
      valid: (row) => {
        flushDeferred();
        valid.add(row);
        if (valid.size >= SCAN_BATCH) flushJudged();
      },
      invalid: (entry) => {
        flushDeferred();
        invalid.push(entry);
        if (invalid.length >= SCAN_BATCH) flushJudged();
      },
      // Back-pressure: the reader pauses while the main thread is behind.
      pause: () =>
        backlog() >= MAX_BACKLOG_BATCHES
          ? new Promise<void>((resolve) => {
              wakeOnAck = resolve;
            })
          : undefined,
    },
    policy === 'never' ? undefined : deferral,
    metaColumns,
  );
  flushDeferred();
  flushJudged();
  port.postMessage({ type: 'done', summary } satisfies ScanMessage);
}

main().catch((err: unknown) =>
  port.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ScanMessage),
);
