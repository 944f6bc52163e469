// Work a run repeats on a beat (sweeps of other runners, the job's cancellation): a round never starts
// while the last one still runs, so a slow journal does not pile rounds up; the timer does not hold the
// process open.

export interface Repeating {
  stop(): void;
}

/** Runs `round` every `everyMs`, skipping beats while one is in progress. `round` handles its own failures. */
export function repeatWithoutOverlap(everyMs: number, round: () => Promise<void>): Repeating {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= round().finally(() => {
      running = undefined;
    });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
