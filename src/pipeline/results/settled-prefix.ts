// The settled prefix of results.jsonl: what a rebuild may keep of the file the last one wrote, and how the file
// is known to be that one (its inode, size and mtime: a file changed by anyone else is written whole). The
// runners sharing a job hand it to one another through the journal as opaque text (Coordination.handover),
// under their turn at the rebuild; the journal neither reads it nor knows the file.
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { Coordination } from '../../journal/index.js';

/**
 * What a rebuild of results.jsonl may reuse from the file the last one (of this runner, or of another of the job)
 * wrote: its first `bytes` bytes hold the lines of every item up to `seq`, all settled.
 */
export interface SettledPrefix {
  seq: number;
  bytes: number;
  file: FileIdentity;
}

export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function fileIdentity(stats: Pick<Stats, 'ino' | 'size' | 'mtimeMs'>): FileIdentity {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

/** `prefix` when the file at `target` is still the one it describes and none of its items is open again. */
export async function reusablePrefix(
  target: string,
  prefix: SettledPrefix | undefined,
  settledUpTo: number,
): Promise<SettledPrefix | undefined> {
  // An item of the prefix open again (sent again by `retry`) needs its line rewritten.
  if (!prefix || prefix.seq > settledUpTo) return undefined;
  const now = await stat(target).catch(() => undefined);
  const same =
    now && now.ino === prefix.file.ino && now.size === prefix.file.size && now.mtimeMs === prefix.file.mtimeMs;
  return same ? prefix : undefined;
}

/** The prefix the job's last rebuild of `file` (a host's path) handed on, read under exclusive('results'). */
export async function handedPrefix(shared: Coordination, file: string): Promise<SettledPrefix | undefined> {
  const text = await shared.handover(file);
  return text === undefined ? undefined : parsePrefix(text);
}

/** Hands what this rebuild left to the next one, on any runner: it appends instead of rewriting. */
export async function handPrefixOn(shared: Coordination, file: string, prefix: SettledPrefix): Promise<void> {
  await shared.recordHandover(file, JSON.stringify(prefix));
}

/** A record that is not a prefix (written by anything else) reuses nothing: the file is written whole. */
function parsePrefix(text: string): SettledPrefix | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { seq, bytes, file } = value as Partial<SettledPrefix>;
  if (!isCount(seq) || !isCount(bytes) || typeof file !== 'object' || file === null) return undefined;
  if (!isCount(file.ino) || !isCount(file.size) || typeof file.mtimeMs !== 'number') return undefined;
  return { seq, bytes, file: fileIdentity(file) };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
