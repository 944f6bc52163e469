// Counts of events per time bucket over a sliding window: a rate from the last minutes, in constant
// memory whatever the number of rows (a ring of buckets, not a list of timestamps).

export class RateRing {
  private readonly counts: Float64Array;
  /** The bucket index (time / bucketMs) each slot currently holds. */
  private readonly slots: Float64Array;

  constructor(
    private readonly bucketMs = 5_000,
    private readonly buckets = 60,
  ) {
    this.counts = new Float64Array(buckets);
    this.slots = new Float64Array(buckets).fill(-1);
  }

  add(at: number, n = 1): void {
    const index = Math.floor(at / this.bucketMs);
    const slot = index % this.buckets;
    if (this.slots[slot] !== index) {
      this.slots[slot] = index;
      this.counts[slot] = 0;
    }
    this.counts[slot]! += n;
  }

  /** Events from `since` (or the oldest bucket still held) to `now`, and that window's length. */
  recent(now: number, since: number): { windowMs: number; count: number } {
    const last = Math.floor(now / this.bucketMs);
    const from = Math.max(since, (last - this.buckets + 1) * this.bucketMs);
    const first = Math.floor(from / this.bucketMs);
    let count = 0;
    for (let i = 0; i < this.buckets; i++) {
      const index = this.slots[i]!;
      if (index >= first && index <= last) count += this.counts[i]!;
    }
    return { windowMs: Math.max(0, now - from), count };
  }
}
