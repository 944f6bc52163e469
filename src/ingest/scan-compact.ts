// Scans manifests into compact rows: in a worker thread for large manifests (parsing and SQLite
// inserts then run on two cores, and this thread judges a share of the rows whenever it has caught
// up with the inserts), in this thread for small ones (a worker costs ~40 ms to start).
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { PricingTable } from '../core/pricing.js';
import { positiveKnob } from '../core/test-knob.js';
import { DeferredJudge } from './deferred-judge.js';
import { scanManifests, type ScanSummary } from './scan-manifests.js';
import {
  compactRow,
  rowsOf,
  SCAN_WORKER_YOUNG_GENERATION_MB,
  type CompactHandlers,
  type DeferralPolicy,
  type ScanMessage,
  type ScanWorkerData,
} from './scan-protocol.js';

export const WORKER_THRESHOLD_BYTES = 8 << 20;

/** Overrides the threshold (a test knob: the worker path without writing 8 MiB of manifest). */
export const WORKER_THRESHOLD_ENV = 'GBATCH_SCAN_WORKER_BYTES';

export function workerThresholdBytes(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, WORKER_THRESHOLD_ENV, WORKER_THRESHOLD_BYTES);
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

export interface ScanCompactOptions {
  /** Default: a worker for manifests of workerThresholdBytes() and more. */
  useWorker?: boolean;
  /** The worker's script (tests under a TypeScript runner give the built one). */
  workerUrl?: URL;
  deferral?: DeferralPolicy;
  /** CSV columns kept as the row's metadata, never sent (--meta-columns). */
  metaColumns?: readonly string[];
}

/** With how many of the rows the worker handed to this thread unjudged. */
export interface CompactScanSummary extends ScanSummary {
  deferredRows: number;
}

export async function scanCompact(
  files: readonly string[],
  pricing: PricingTable,
  handlers: CompactHandlers,
  options: ScanCompactOptions = {},
): Promise<CompactScanSummary> {
  const useWorker =
    options.useWorker ?? (!import.meta.url.endsWith('.ts') && totalBytes(files) >= workerThresholdBytes());
  if (!useWorker) {
    const summary = await scanManifests(
      files,
      pricing,
      { valid: (row) => handlers.valid(compactRow(row)), invalid: handlers.invalid },
      undefined,
      options.metaColumns,
    );
    return { ...summary, deferredRows: 0 };
  }
  const handled = new Int32Array(new SharedArrayBuffer(4));
  const workerData: ScanWorkerData = {
    files,
    pricing,
    handled: handled.buffer as SharedArrayBuffer,
    deferral: options.deferral ?? 'adaptive',
    metaColumns: options.metaColumns ?? [],
  };
  const worker = new Worker(options.workerUrl ?? workerUrl, {
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: SCAN_WORKER_YOUNG_GENERATION_MB },
  });
  const judged = new DeferredJudge(pricing, handlers, options.metaColumns);
  try {
    const summary = await new Promise<ScanSummary>((resolve, reject) => {
      worker.on('message', (message: ScanMessage) => {
        try {
          if (message.type === 'batch' || message.type === 'deferred') {
            if (message.type === 'batch') {
              for (const row of rowsOf(message.valid)) handlers.valid(row);
              for (const entry of message.invalid) handlers.invalid(entry);
            } else {
              judged.judge(message.rows);
            }
            Atomics.add(handled, 0, 1);
            if (handlers.drained) handlers.drained().then(() => worker.postMessage('ack'), reject);
            else worker.postMessage('ack');
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
    const here = judged.summary;
    return {
      rows: summary.rows + here.rows,
      valid: summary.valid + here.valid,
      invalid: summary.invalid + here.invalid,
      deferredRows: here.rows,
    };
  } finally {
    judged.close();
    await worker.terminate();
  }
}
