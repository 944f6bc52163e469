// Where a lane slot's time goes between an answer and the next request it sends: a diagnostic, off unless
// GBATCH_SLOT_TRACE names a file (the chat benchmark sets it). Slots are not named: the lane hands a freed
// slot to the next row, so each row that starts takes the oldest answer not yet followed, and its phases
// are timed from there: booking (the answer in, to its slot freed: the outcome planned and queued for its
// commit; on a journal shared by runners, the check of a text answer's charge against the job's ratios
// read afresh comes after, outside the slot), hand-over (the slot
// freed, to the row's attempt starting in it: the lane waking, the budget's reservation, a claim of more
// rows), intent (the intent written and durable: waiting behind
// the commit in progress, then its own), pacing (durable, to the request cleared to leave: --rpm, the
// runner's standing) and wire (the client's own work until the request's first byte is sent).
import { writeFileSync } from 'node:fs';

export const SLOT_TRACE_ENV = 'GBATCH_SLOT_TRACE';

const PHASES = ['booking', 'handOver', 'intent', 'pacing', 'wire'] as const;
export type SlotPhase = (typeof PHASES)[number];

/** One row's cycle, from the answer it follows (undefined for the slot's first request). */
export interface SlotCycle {
  mark(phase: SlotPhase): void;
}

export interface SlotTraceSummary {
  cycles: number;
  /** Mean and percentiles (ms) of the whole cycle and of each phase. */
  totalMs: Stats;
  phasesMs: Record<SlotPhase, Stats>;
  /** Time the lane spent claiming rows (ms), and how many claims. */
  claims: { count: number; totalMs: number };
}

interface Stats {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

export class SlotTrace {
  /** Answers not yet followed by a request in their slot: when each came in and when it freed its slot. */
  private readonly freed: Array<{ answeredAt: number; freedAt: number }> = [];
  private readonly cycles: Array<Record<SlotPhase, number> & { total: number }> = [];
  private claimCount = 0;
  private claimMs = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The time now, for answered(). */
  answerIn(): number {
    return this.now();
  }

  /** An answer that came in at `answeredAt` (answerIn()) freed its slot. */
  answered(answeredAt: number): void {
    this.freed.push({ answeredAt, freedAt: this.now() });
  }

  /** A row's attempt starts in a slot; its phases are marked in order, `wire` last. */
  started(): SlotCycle {
    const from = this.freed.shift();
    if (from === undefined) return { mark: () => {} };
    const marks: Partial<Record<SlotPhase, number>> = { booking: from.freedAt, handOver: this.now() };
    return {
      mark: (phase) => {
        marks[phase] = this.now();
        if (phase === 'wire') this.record(from, marks);
      },
    };
  }

  claimed(ms: number): void {
    this.claimCount++;
    this.claimMs += ms;
  }

  private record(from: { answeredAt: number }, marks: Partial<Record<SlotPhase, number>>): void {
    let last = from.answeredAt;
    const cycle = { total: marks.wire! - from.answeredAt } as Record<SlotPhase, number> & { total: number };
    for (const phase of PHASES) {
      const at = marks[phase] ?? last;
      cycle[phase] = at - last;
      last = at;
    }
    this.cycles.push(cycle);
  }

  summary(): SlotTraceSummary {
    const stats = (values: number[]): Stats => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (q: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      const mean = sorted.length === 0 ? 0 : sorted.reduce((n, v) => n + v, 0) / sorted.length;
      return { mean: round(mean), p50: at(0.5), p90: at(0.9), p99: at(0.99) };
    };
    return {
      cycles: this.cycles.length,
      totalMs: stats(this.cycles.map((c) => c.total)),
      phasesMs: Object.fromEntries(PHASES.map((p) => [p, stats(this.cycles.map((c) => c[p]))])) as Record<
        SlotPhase,
        Stats
      >,
      claims: { count: this.claimCount, totalMs: round(this.claimMs) },
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The trace GBATCH_SLOT_TRACE asks for, with where to write it; undefined when unset. */
export function slotTraceFromEnv(env: NodeJS.ProcessEnv = process.env): { trace: SlotTrace; file: string } | undefined {
  const file = env[SLOT_TRACE_ENV];
  return file ? { trace: new SlotTrace(), file } : undefined;
}

export function writeSlotTrace(file: string, trace: SlotTrace): void {
  writeFileSync(file, `${JSON.stringify(trace.summary())}\n`);
}
