// Pure: the job's event log folded into what the report shows over time: each item's times, the rows
// done and the money settled per interval, the 429 pauses and 5xx bursts, and how long video tasks took.
// Fed one event at a time (seq order), so the log is never held whole.
import type { EventLogRecord } from '../journal/index.js';

/** When an item moved through its last attempt (ms since the epoch; undefined: not yet, or never). */
export interface ItemTiming {
  submittedAt?: number;
  acceptedAt?: number;
  succeededAt?: number;
  /** When it reached the state it is in, if that state is terminal (downloaded, failed, rejected). */
  finishedAt?: number;
}

export interface Interval {
  start: number;
  end: number;
  count: number;
}
export interface SpendPoint {
  at: number;
  usd: number;
}
export interface Bucket {
  start: number;
  done: number;
  submitted: number;
}

export interface Timeline {
  /** First submission and last transition of the job (undefined: nothing was ever sent). */
  startedAt: number | undefined;
  endedAt: number | undefined;
  items: ReadonlyMap<string, ItemTiming>;
  /** Cumulative settled spend (USD) after each settlement, in time order. */
  spend: SpendPoint[];
  bucketMs: number;
  buckets: Bucket[];
  /** 429 answers: the time the account waited after each, merged where they overlap. */
  pauses: Interval[];
  /** Gateway 5xx answers (and connection failures) close together. */
  bursts: Interval[];
  /** Submission to success of each video task (ms), of tasks that succeeded. */
  videoDurationsMs: number[];
}

const TERMINAL = new Set(['downloaded', 'failed', 'rejected']);
const SETTLES = new Set(['complete', 'finish', 'oversize']);
/** The spend series keeps about this many points (a chart is a few hundred pixels wide; 100,000 rows are not). */
export const SPEND_POINTS = 600;
/** 5xx answers closer together than this are one burst. */
export const BURST_GAP_MS = 5000;
const NICE_BUCKETS_MS = [
  1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
  21_600_000, 43_200_000, 86_400_000,
];

/** The smallest round interval that cuts `spanMs` into at most `maxBuckets`. */
export function bucketSize(spanMs: number, maxBuckets = 60): number {
  for (const size of NICE_BUCKETS_MS) if (spanMs / size <= maxBuckets) return size;
  return Math.ceil(spanMs / maxBuckets / 86_400_000) * 86_400_000;
}

export class TimelineBuilder {
  private readonly items = new Map<string, ItemTiming>();
  private readonly spend: SpendPoint[] = [];
  private readonly submits: number[] = [];
  private readonly dones: number[] = [];
  private readonly rateLimits: Array<{ at: number; until: number }> = [];
  private readonly serverErrors: number[] = [];
  private readonly videoDurations: number[] = [];
  private first: number | undefined;
  private last: number | undefined;

  add(e: Pick<EventLogRecord, 'itemId' | 'at' | 'event' | 'to' | 'detail'>): void {
    const timing = this.timing(e.itemId);
    if (e.event === 'submit') {
      this.first ??= e.at;
      this.submits.push(e.at);
      // A new attempt: what the earlier one reached no longer describes the item.
      delete timing.acceptedAt;
      delete timing.succeededAt;
      delete timing.finishedAt;
      timing.submittedAt = e.at;
    }
    if (this.first !== undefined) this.last = Math.max(this.last ?? e.at, e.at);
    if (e.event === 'accept' || e.event === 'attach') timing.acceptedAt = e.at;
    if (e.event === 'complete' || e.event === 'finish') timing.succeededAt = e.at;
    if (e.event === 'finish' && timing.acceptedAt !== undefined && timing.submittedAt !== undefined) {
      this.videoDurations.push(e.at - timing.submittedAt);
    }
    if (TERMINAL.has(e.to)) {
      // A row already ended (a note, or `unreserve` on a failed row) is not done twice.
      if (timing.finishedAt === undefined) this.dones.push(e.at);
      timing.finishedAt ??= e.at;
    } else {
      delete timing.finishedAt;
    }
    const detail = (e.detail ?? {}) as { actualUsd?: unknown; status?: unknown; delayMs?: unknown };
    if (SETTLES.has(e.event) && typeof detail.actualUsd === 'number')
      this.spend.push({ at: e.at, usd: detail.actualUsd });
    if (e.event === 'retry') {
      const delay = typeof detail.delayMs === 'number' ? detail.delayMs : 0;
      if (detail.status === 429) this.rateLimits.push({ at: e.at, until: e.at + Math.max(delay, 1) });
      else if (detail.status !== 401) this.serverErrors.push(e.at);
    }
  }

  finish(): Timeline {
    const startedAt = this.first;
    const endedAt = this.last;
    const span = startedAt === undefined || endedAt === undefined ? 0 : endedAt - startedAt;
    const bucketMs = bucketSize(span);
    const origin = startedAt === undefined ? 0 : Math.floor(startedAt / bucketMs) * bucketMs;
    const count = startedAt === undefined ? 0 : Math.floor((endedAt! - origin) / bucketMs) + 1;
    const buckets: Bucket[] = Array.from({ length: count }, (_, i) => ({
      start: origin + i * bucketMs,
      done: 0,
      submitted: 0,
    }));
    for (const at of this.submits) buckets[Math.floor((at - origin) / bucketMs)]!.submitted++;
    for (const at of this.dones) {
      const bucket = buckets[Math.floor((at - origin) / bucketMs)];
      if (bucket) bucket.done++;
    }
    // Seq order is commit order; a transition's time is taken when its change is made, a little before.
    let spent = 0;
    const spend = thin(
      this.spend.sort((a, b) => a.at - b.at).map((p) => ({ at: p.at, usd: (spent += p.usd) })),
      span / SPEND_POINTS,
    );
    return {
      startedAt,
      endedAt,
      items: this.items,
      spend,
      bucketMs,
      buckets,
      pauses: mergeIntervals(
        this.rateLimits.map((r) => ({ start: r.at, end: r.until, count: 1 })),
        0,
      ),
      bursts: mergeIntervals(
        this.serverErrors.map((at) => ({ start: at, end: at, count: 1 })),
        BURST_GAP_MS,
      ),
      videoDurationsMs: this.videoDurations,
    };
  }

  private timing(id: string): ItemTiming {
    let timing = this.items.get(id);
    if (!timing) this.items.set(id, (timing = {}));
    return timing;
  }
}

/** The last point of each `stepMs` slot (a cumulative series: each kept point is exact, the steps between merge). */
export function thin(points: readonly SpendPoint[], stepMs: number): SpendPoint[] {
  if (points.length <= SPEND_POINTS || stepMs <= 0) return [...points];
  const kept: SpendPoint[] = [];
  for (const p of points) {
    const last = kept[kept.length - 1];
    if (last && Math.floor(last.at / stepMs) === Math.floor(p.at / stepMs)) kept[kept.length - 1] = p;
    else kept.push(p);
  }
  return kept;
}

/** Sorted, and joined where one starts within `gapMs` of the previous one's end. */
export function mergeIntervals(intervals: readonly Interval[], gapMs: number): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const next of sorted) {
    const open = merged[merged.length - 1];
    if (open && next.start <= open.end + gapMs) {
      open.end = Math.max(open.end, next.end);
      open.count += next.count;
    } else {
      merged.push({ ...next });
    }
  }
  return merged;
}

export async function buildTimeline(events: AsyncIterable<EventLogRecord>): Promise<Timeline> {
  const builder = new TimelineBuilder();
  for await (const event of events) builder.add(event);
  return builder.finish();
}

/** The value at quantile q (0..1) of `values`, nearest rank; undefined when empty. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
