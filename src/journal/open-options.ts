// How a journal is opened, whichever adapter opens it.

export interface OpenStoreOptions {
  /** The job's name: a PostgreSQL database holds many jobs, and this picks one. */
  job: string;
  clock?: { now(): number };
  readonly?: boolean;
  sync?: 'full' | 'off';
  syncWal?: (walPath: string) => void;
}
