// How a run stops before its work is done: a signal, the deadline, or a gateway that refuses every
// connection. Each stop ends new submissions and polls at once; requests already on the wire get a
// bounded grace, then are cut (hardStop). The deadline with a drain ends submissions only (theirs
// cut after the grace: submitCut); tasks in flight are polled and downloaded until the drain ends,
// then polls stop as at any other stop. The first stop names the run's stop reason.
import { deadlinePassed } from '../../core/deadline.js';
import type { RunContext, SubmitGate } from '../context.js';
import type { DeadlineCut } from '../voice/run-voice.js';

export type EarlyStop = 'interrupted' | 'deadline' | 'unreachable';

/** The run's controllers it aborts (submitCut: aborted with hardStop too), and when to abort them. */
export interface RunStopsOptions extends Pick<
  RunContext,
  'clock' | 'events' | 'voice' | 'submitStop' | 'stop' | 'hardStop' | 'submitCut'
> {
  deadlineAt?: number;
  deadlineGraceMs: number;
  /** After the deadline, how long polls and downloads go on (0: they stop at the deadline). */
  drainMs?: number;
  /** Grace after the first SIGINT/SIGTERM (a second one cuts at once). */
  interruptGraceMs: number;
}

export class RunStops implements SubmitGate {
  private why: EarlyStop | undefined;
  private line: string | undefined;
  private graceMs: number | undefined;
  private readonly begun = new Set<EarlyStop>();
  private readonly disposed = new AbortController();
  private draining = false;

  constructor(private readonly options: RunStopsOptions) {
    // Whatever cuts every request (a second signal, a lost lock, a grace over) cuts submissions too.
    const { hardStop, submitCut } = options;
    if (submitCut)
      hardStop.signal.addEventListener('abort', () => submitCut.abort(hardStop.signal.reason), {
        once: true,
        signal: this.disposed.signal,
      });
  }

  get reason(): EarlyStop | undefined {
    return this.why;
  }

  /** The one line that says why the run stopped early (as logged, or as the run's record keeps it). */
  get message(): string | undefined {
    return this.line;
  }

  /** Starts the deadline's timer; a deadline already passed stops the run before anything is sent. */
  armDeadline(): void {
    const { deadlineAt, clock } = this.options;
    if (deadlineAt === undefined) return;
    if (deadlinePassed(deadlineAt, clock.now())) {
      this.deadlineReached();
      return;
    }
    clock.sleep(deadlineAt - clock.now(), this.disposed.signal).then(
      () => this.deadlineReached(),
      () => undefined,
    );
  }

  allows(): boolean {
    if (this.options.submitStop.signal.aborted) return false;
    if (deadlinePassed(this.options.deadlineAt, this.options.clock.now())) {
      // The timer may not have fired yet (a busy event loop): the clock decides, not the timer.
      this.deadlineReached();
      return false;
    }
    return true;
  }

  interrupt(signal?: string): void {
    const by = signal ? ` (${signal})` : '';
    this.begin(
      'interrupted',
      `stopping: no new submissions${by}; waiting for requests in flight (signal again to cut them)`,
      this.options.interruptGraceMs,
      this.options.voice.interrupted(signal),
    );
  }

  force(): void {
    this.begin('interrupted', undefined, undefined);
    this.options.hardStop.abort('forced');
  }

  /** The gateway refused connection after connection: nothing more is sent, polls stop too. */
  unreachable(line: string): void {
    this.begin('unreachable', line, this.options.deadlineGraceMs);
  }

  /**
   * The closing line for a deadline stop, once the run's lanes are done: what was cut after the grace.
   * Undefined for other stops (their one line was logged when they happened).
   */
  deadlineSummary(cutSubmissions: number): string | undefined {
    if (this.why !== 'deadline') return undefined;
    const at = new Date(this.options.deadlineAt!).toISOString();
    const graceS = this.options.deadlineGraceMs / 1000;
    const drained = this.draining && !this.options.stop.signal.aborted;
    // Drained to the end: only submissions could have been cut (their grace ran out long ago, maybe on nothing).
    const cutAny = drained ? cutSubmissions > 0 : this.options.hardStop.signal.aborted;
    const cut: DeadlineCut = cutAny
      ? cutSubmissions > 0
        ? { kind: 'submissions', count: cutSubmissions, graceS }
        : { kind: 'requests', graceS }
      : { kind: 'none' };
    return this.options.voice.deadlineSummary(at, cut, drained);
  }

  dispose(): void {
    this.disposed.abort();
  }

  private deadlineReached(): void {
    const at = new Date(this.options.deadlineAt!).toISOString();
    const drainMs = this.options.drainMs ?? 0;
    if (drainMs > 0 && !this.options.stop.signal.aborted) return this.drain(at, drainMs);
    this.begin(
      'deadline',
      this.options.voice.deadlineReached(at, this.options.deadlineGraceMs / 1000),
      this.options.deadlineGraceMs,
    );
  }

  /**
   * The deadline with a drain: nothing new is submitted and submissions on the wire get the grace, but
   * tasks in flight are still polled and downloaded until the drain ends; then every lane stops as at
   * a deadline without one (polls and downloads in flight get the grace, then are cut).
   */
  private drain(at: string, drainMs: number): void {
    if (this.draining) return;
    this.draining = true;
    const { submitStop, hardStop, clock, events, deadlineGraceMs } = this.options;
    const submitCut = this.options.submitCut ?? hardStop;
    if (this.why === undefined) this.why = 'deadline';
    events.emit('log', this.options.voice.deadlineDraining(at, deadlineGraceMs / 1000, span(drainMs)));
    submitStop.abort('deadline');
    clock.sleep(deadlineGraceMs, this.disposed.signal).then(
      () => submitCut.abort('grace period over'),
      () => undefined,
    );
    clock.sleep(drainMs, this.disposed.signal).then(
      () => {
        if (this.options.stop.signal.aborted) return;
        this.begin(
          'deadline',
          `drain over (${span(drainMs)} after the deadline): no more polls or downloads; requests in flight get ${deadlineGraceMs / 1000} s, then are cut`,
          deadlineGraceMs,
        );
      },
      () => undefined,
    );
  }

  /** `record` is what the run's record keeps when it differs from the line logged now. */
  private begin(reason: EarlyStop, line: string | undefined, graceMs: number | undefined, record = line): void {
    if (!this.begun.has(reason)) {
      this.begun.add(reason);
      if (this.why === undefined) {
        this.why = reason;
        this.line = record;
      }
      if (line !== undefined) this.options.events.emit('log', line);
    }
    const { submitStop, stop, hardStop, clock } = this.options;
    submitStop.abort(reason);
    stop.abort(reason);
    if (graceMs === undefined || hardStop.signal.aborted) return;
    // A later stop with a shorter grace (a deadline during an interrupt's) starts its own; the first to end cuts.
    if (this.graceMs !== undefined && this.graceMs <= graceMs) return;
    this.graceMs = graceMs;
    clock.sleep(graceMs, this.disposed.signal).then(
      () => hardStop.abort('grace period over'),
      () => undefined,
    );
  }
}

/** A drain as said in a line: "15m", "90s", "1h30m". */
function span(ms: number): string {
  if (ms % 1000 !== 0) return `${ms / 1000}s`;
  const s = ms / 1000;
  const parts = [
    [Math.floor(s / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ] as const;
  return (
    parts
      .filter(([n]) => n > 0)
      .map(([n, u]) => `${n}${u}`)
      .join('') || `${ms} ms`
  );
}
