// Ids seen so far and the line each was first seen on: the only state kept across rows.
//
// A million ids in a Map cost ~80 MB of heap and make the garbage collector keep a far larger heap
// around them; this table keeps a 64-bit fingerprint and a line number per id in typed arrays
// (~12 bytes a slot, off the GC's books). Two different ids sharing both 32-bit hashes would be
// reported as seen: about n^2 / 2^65, 3e-8 for a million rows, and such a false report costs nothing
// (a manifest refuses the row, never sending it twice; a PostgreSQL first ingest judges it the exact
// way). The journal's unique id constraint stays exact.

import { fnv1a, murmurish } from './id-hash.js';

const EMPTY_LINE = 0; // lines are 1-based, so 0 marks a free slot

export class IdRegistry {
  private hashes: Uint32Array;
  private lines: Uint32Array;
  private count = 0;

  constructor(initialSlots = 1 << 12) {
    this.hashes = new Uint32Array(initialSlots * 2);
    this.lines = new Uint32Array(initialSlots);
  }

  /** Records the id; returns the earlier line when it was seen before. */
  register(id: string, line: number): number | undefined {
    if ((this.count + 1) * 2 > this.lines.length) this.grow();
    const a = fnv1a(id);
    const b = murmurish(id);
    const found = this.place(a, b, line);
    if (found === undefined) this.count++;
    return found;
  }

  get size(): number {
    return this.count;
  }

  private place(a: number, b: number, line: number): number | undefined {
    const mask = this.lines.length - 1;
    for (let slot = (a ^ Math.imul(b, 0x27d4eb2d)) & mask; ; slot = (slot + 1) & mask) {
      const existing = this.lines[slot]!;
      if (existing === EMPTY_LINE) {
        this.hashes[slot * 2] = a;
        this.hashes[slot * 2 + 1] = b;
        this.lines[slot] = line;
        return undefined;
      }
      if (this.hashes[slot * 2] === a && this.hashes[slot * 2 + 1] === b) return existing;
    }
  }

  private grow(): void {
    const oldHashes = this.hashes;
    const oldLines = this.lines;
    this.hashes = new Uint32Array(oldHashes.length * 2);
    this.lines = new Uint32Array(oldLines.length * 2);
    for (let slot = 0; slot < oldLines.length; slot++) {
      const line = oldLines[slot]!;
      if (line !== EMPTY_LINE) this.place(oldHashes[slot * 2]!, oldHashes[slot * 2 + 1]!, line);
    }
  }
}
