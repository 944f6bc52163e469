// What the conformance suite needs of an adapter: a fresh journal per test, stores opened on it (closed
// after the test), and one raw hand for what no interface method may do: plant another process's runner.
// Also the rows, changes and reads the method files (methods/) share.
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import type {
  Change,
  IngestEntry,
  IngestSummary,
  Item,
  JournalStore,
  ManifestPrint,
} from '../../../src/journal/index.js';

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
  /** Marks the journal's schema one version newer than this gbatch's, as a newer gbatch would leave it; undoes it. */
  newerSchema(): Promise<() => Promise<void>>;
}

/**
 * Registers the hooks (fresh journal before each test, stores closed after) and returns the harness. `available`:
 * whether the adapter's server can be reached (absent: always).
 */
export type UseHarness = (() => Harness) & { available?: () => boolean };

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

export const zeroCounts = (): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;

/** A submit under a reservation, as the pipeline writes it. */
export const submit = (id: string, reservedUsd = 0.01, attempt = 1): Change => ({
  id,
  event: 'submit',
  patch: { attempts: attempt, reservedUsd, priceSnapshot: { usdPerCall: reservedUsd } },
  detail: { attempt },
});

/** The rows the transition cases start from: two chats, a video, one more chat. */
export const fourRows = (): IngestEntry[] => [
  row('chat', 1),
  row('video', 2, { kind: 'video' }),
  row('third', 3),
  row('fourth', 4),
];

/** Rows of the ids given, on lines 1, 2, 3, ... */
/** Five chat rows, a video row and a chat row: the results file's cases, where a video line waits for its file. */
export const resultsRows = (): IngestEntry[] =>
  [1, 2, 3, 4, 5].map((n) => row(`c${n}`, n)).concat([row('v6', 6, { kind: 'video' }), row('c7', 7)]);

/** A row sent and answered 200 with `body`. */
export const answered = (id: string, body: string): Change[] => [
  submit(id),
  { id, event: 'complete', patch: { response: { body }, responseStatus: 200 } },
];

export const rowsOf = (...ids: string[]): IngestEntry[] => ids.map((id, i) => row(id, i + 1));

export const ids = (items: readonly Item[]): string[] => items.map((item) => item.id);

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export async function collectIds(items: AsyncIterable<Item>): Promise<string[]> {
  return ids(await collect(items));
}

/** Ingests as a run does: the whole of its manifests, then the rows it did not read orphaned, then the records. */
export async function ingestRun(
  store: JournalStore,
  entries: readonly IngestEntry[],
  prints: readonly ManifestPrint[] = [],
  withheld?: readonly string[],
): Promise<IngestSummary> {
  const writer = await store.beginIngest();
  for (let i = 0; i < entries.length; i += 64) await writer.add(entries.slice(i, i + 64));
  if (writer.settle) await writer.settle();
  await writer.orphanUnread(withheld);
  await writer.recordManifests(prints);
  return writer.commit();
}
