// `gbatch serve`'s catalog: its files and batches, each owned by a client's token (by its hash), kept in
// the journal with the jobs the batches are. The objects are kept as JSON records: the server shapes them.
/** A file a client uploaded, or one derived from a batch (its output or error file, a video it produced). */
export interface CatalogFile {
  id: string;
  owner: string;
  /** Seconds since the epoch, as OpenAI's objects carry it. */
  createdAt: number;
  record: Record<string, unknown>;
}

export interface CatalogBatch {
  id: string;
  owner: string;
  status: string;
  createdAt: number;
  record: Record<string, unknown>;
}

export interface CatalogPage {
  limit: number;
  /** The id of the last object of the previous page: the next page starts after it (newest first). */
  after?: string;
}

export interface ServeCatalog {
  readonly adapter: 'sqlite' | 'postgres';
  addFile(file: CatalogFile): Promise<void>;
  file(id: string): Promise<CatalogFile | undefined>;
  /** The owner's files, newest first. */
  files(owner: string, page: CatalogPage): Promise<CatalogFile[]>;
  deleteFile(id: string): Promise<boolean>;
  addBatch(batch: CatalogBatch): Promise<void>;
  batch(id: string): Promise<CatalogBatch | undefined>;
  /** The owner's batches, newest first. */
  batches(owner: string, page: CatalogPage): Promise<CatalogBatch[]>;
  /** Writes the batch's status and record; `from` (when given) must be its status still, else nothing is written. */
  updateBatch(batch: CatalogBatch, from?: readonly string[]): Promise<boolean>;
  /** Batches in the given statuses, oldest first. */
  batchesIn(statuses: readonly string[]): Promise<CatalogBatch[]>;
  close(): Promise<void>;
}

/** A catalog row as both adapters read it (`SELECT *`; PostgreSQL's bigint comes as a string). */
export interface CatalogFileRow {
  id: string;
  owner: string;
  created_at: string | number;
  record: string;
}
export interface CatalogBatchRow extends CatalogFileRow {
  status: string;
}

export const catalogFileOf = (row: CatalogFileRow): CatalogFile => ({
  id: row.id,
  owner: row.owner,
  createdAt: Number(row.created_at),
  record: JSON.parse(row.record) as Record<string, unknown>,
});
export const catalogBatchOf = (row: CatalogBatchRow): CatalogBatch => ({ ...catalogFileOf(row), status: row.status });
