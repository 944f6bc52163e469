// What the conformance suite needs of an adapter: a fresh journal per test, stores opened on it (closed
// after the test), and one raw hand for what no interface method may do: plant another process's runner.
import type { IngestEntry, IngestSummary, JournalStore, ManifestPrint } from '../../../src/journal/index.js';

export interface Clock {
  now(): number;
}

export interface Harness {
  readonly adapter: 'sqlite' | 'postgres';
  /** The job this test's stores are opened on (saveJob uses it: a PostgreSQL job's name is its key). */
  jobName(): string;
  /** Opens a store on this test's journal; every call opens another store (another connection) on the same one. */
  open(options?: { clock?: Clock; readonly?: boolean }): Promise<JournalStore>;
  /** Makes the job's runner record say this (replacing whatever it said), as another process would have left it. */
  plantRunner(row: { pid: number; host: string; heartbeatAt: number; processStart?: string | null }): Promise<void>;
  /**
   * Deletes or replaces the journal under its open stores, as an operator's `rm` or `mv` would: only a file can be
   * (absent: never lost).
   */
  loseJournal?(kind: 'deleted' | 'replaced'): Promise<void>;
}

/** Registers the hooks (fresh journal before each test, stores closed after) and returns the harness. */
export type UseHarness = () => Harness;

/** A manifest row with a deterministic line: the same call gives the same row on either adapter. */
export function row(id: string, line: number, overrides: Partial<IngestEntry> = {}): IngestEntry {
  const kind = overrides.kind ?? 'chat';
  const model = overrides.model ?? (kind === 'video' ? 'video-fast' : 'chat-small');
  const request =
    overrides.request ??
    (kind === 'video'
      ? { model, prompt: `a clip for ${id}`, resolution: '720p', duration: 5 }
      : { model, messages: [{ role: 'user', content: `hello ${id}\twith a tab, a \\ and a\nnewline` }] });
  return {
    id,
    kind,
    model,
    request,
    contentHash: `hash-of-${id}`,
    sourceFile: 'manifest.jsonl',
    sourceLine: line,
    state: 'pending',
    resolution: kind === 'video' ? '720p' : null,
    hasReferenceVideo: false,
    estimateUsd: kind === 'video' ? 0.5 : 0.01,
    lastError: null,
    ...overrides,
  };
}

export function invalidRow(id: string, line: number, overrides: Partial<IngestEntry> = {}): IngestEntry {
  return {
    id,
    kind: 'invalid',
    model: null,
    request: null,
    contentHash: `invalid:${id}:${line}`,
    sourceFile: 'manifest.jsonl',
    sourceLine: line,
    state: 'invalid',
    lastError: { message: `row ${line}: prompt is required` },
    ...overrides,
  };
}

/** Ingests as the pipeline does: batches of 64, each add awaited, the summary settled before the commit. */
export async function ingest(
  store: JournalStore,
  entries: readonly IngestEntry[],
  prints: readonly ManifestPrint[] = [],
): Promise<IngestSummary> {
  const writer = await store.beginIngest();
  try {
    for (let i = 0; i < entries.length; i += 64) await writer.add(entries.slice(i, i + 64));
    if (prints.length > 0) await writer.recordManifests(prints);
  } catch (err) {
    await writer.rollback();
    throw err;
  }
  return writer.commit();
}

/** What an item looks like apart from where and when the adapter put it (seq, updatedAt). */
export function portable<T extends { seq: number; updatedAt: number }>(item: T): Omit<T, 'seq' | 'updatedAt'> {
  const { seq: _seq, updatedAt: _updatedAt, ...rest } = item;
  return rest;
}

/** What `promise` rejects with; a promise that fulfils fails the test. */
export async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
