// What every part of the server shares: the catalog, where files and journals live, the gateway, and the
// run options all batches take.
import { join } from 'node:path';
import type { PricingTable } from '../core/pricing.js';
import type { GatewayAccess } from '../job/job.js';
import { isDatabaseUrl, type ServeCatalog } from '../journal/index.js';
import type { ServeFiles } from './file-store.js';

export interface ServeContext {
  catalog: ServeCatalog;
  /** Where the uploads and the batches' outputs are: the --data folder or an s3:// prefix. */
  files: ServeFiles;
  /** The local folder of the batches' SQLite journals and the uploads as received. */
  dataDir: string;
  /** --s3-endpoint and --s3-path-style, passed on to each batch's run. */
  s3Endpoint?: string | undefined;
  s3PathStyle?: boolean | undefined;
  /** The journal location the catalog is in: an SQLite file or a postgres:// URL. */
  journal: string;
  pricing: PricingTable;
  /** The --pricing file, passed on to each batch's run (undefined: the built-in table). */
  pricingFile: string | undefined;
  concurrency: number;
  pollIntervalS: number;
  /** --retry-failed and --retry-backoff (seconds) for every batch's run; undefined: run's defaults. */
  retryFailed?: number | undefined;
  retryBackoffS?: number | undefined;
  /** --rpm: all batches together. */
  rpm: number | undefined;
  /** --budget: all batches together. */
  budgetUsd: number | undefined;
  maxFileBytes: number;
  access: GatewayAccess;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
  /** Milliseconds since the epoch. */
  now(): number;
}

export const filesDir = (ctx: Pick<ServeContext, 'dataDir'>): string => join(ctx.dataDir, 'files');

/** A batch's job journal: the shared database, or (an SQLite journal holds one job) a file of its own. */
export function jobJournal(ctx: Pick<ServeContext, 'dataDir' | 'journal'>, batchId: string): string {
  return isDatabaseUrl(ctx.journal) ? ctx.journal : join(ctx.dataDir, 'journals', `${batchId}.db`);
}

export const seconds = (ms: number): number => Math.floor(ms / 1000);
