// A set of ids kept as 64-bit fingerprints in one typed array (8 bytes a slot, off the GC's books).
// Two ids sharing a fingerprint (about n^2 / 2^65: 3e-8 for a million) make `add` answer "seen" for an
// id that was not: callers use a "seen" only as a reason to take the slower, exact path.
import { fnv1a, murmurish } from './id-hash.js';

export class IdFingerprints {
  private slots: Uint32Array;
  private count = 0;

  constructor(initialSlots = 1 << 12) {
    this.slots = new Uint32Array(initialSlots * 2);
  }

  /** Adds the id; true when it (or an id of the same fingerprint) was added before. */
  add(id: string): boolean {
    if ((this.count + 1) * 2 > this.slots.length / 2) this.grow();
    const seen = this.place(fnv1a(id), murmurish(id) || 1); // (x, 0) marks a free slot
    if (!seen) this.count++;
    return seen;
  }

  get size(): number {
    return this.count;
  }

  private place(a: number, b: number): boolean {
    const mask = this.slots.length / 2 - 1;
    for (let slot = (a ^ Math.imul(b, 0x27d4eb2d)) & mask; ; slot = (slot + 1) & mask) {
      const sa = this.slots[slot * 2]!;
      const sb = this.slots[slot * 2 + 1]!;
      if (sb === 0) {
        this.slots[slot * 2] = a;
        this.slots[slot * 2 + 1] = b;
        return false;
      }
      if (sa === a && sb === b) return true;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] !== 0) this.place(old[i]!, old[i + 1]!);
    }
  }
}
