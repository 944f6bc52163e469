// A clock that runs `scale` times faster than real time, shared by the simulator and the runner, so a
// 60 s rate-limit window passes in a second without a single fake wait: every sleep is a real timer.
import type { Clock } from '../../src/core/clock.js';

export class FastClock implements Clock {
  private readonly realStart = performance.now();

  /** `startMs` on a minute boundary starts the test at the beginning of a rate-limit window. */
  constructor(
    readonly scale: number,
    private readonly startMs = 1_767_225_600_000,
  ) {}

  now(): number {
    return Math.floor(this.startMs + (performance.now() - this.realStart) * this.scale);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const wakeAt = this.now() + Math.max(0, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      // A timer may fire a hair early in scaled time; wait out the rest so no sleep ends before its time.
      const arm = (): NodeJS.Timeout =>
        setTimeout(
          () => {
            if (this.now() < wakeAt) {
              timer = arm();
              return;
            }
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.max(0, (wakeAt - this.now()) / this.scale),
        );
      let timer = arm();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
