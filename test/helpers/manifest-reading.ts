import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { BUILTIN_PRICING, type PricingTable } from '../../src/core/pricing.js';
import { readManifest } from '../../src/manifest/read-manifest.js';
import { formatRowError, type ManifestEntry, type ManifestRow } from '../../src/manifest/types.js';

/** A temp directory for this test file, removed after it. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gbatch-manifest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeManifest(dir: string, name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

export async function readAll(file: string, pricing: PricingTable = BUILTIN_PRICING): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  for await (const entry of readManifest(file, { pricing })) entries.push(entry);
  return entries;
}

export function rowsOf(entries: ManifestEntry[]): ManifestRow[] {
  return entries.flatMap((e) => (e.ok ? [e.row] : []));
}

/** Every error of the entries, as the CLI prints them. */
export function messagesOf(entries: ManifestEntry[]): string[] {
  return entries.flatMap((e) => (e.ok ? [] : e.errors.map(formatRowError)));
}

export function jsonl(...rows: unknown[]): string {
  return `${rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`;
}
