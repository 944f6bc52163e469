// How a journal is opened, whichever adapter opens it.
import type { Durability } from './store.js';

export interface OpenStoreOptions {
  /** The job's name: a PostgreSQL database holds many jobs, and this picks one. */
  job: string;
  clock?: { now(): number };
  /** How commits reach the disk by default (SQLite; 'relaxed' is for benchmarks only). Default: 'sync'. */
  durability?: Durability;
  /** How flush() makes the journal's file durable (SQLite; default: fsync). Tests observe it. */
  flushFile?: (path: string) => void;
  /** The most sessions the journal's pool opens (PostgreSQL; default 8). Tests and benchmarks set it. */
  poolSize?: number;
}
