// A read of the journal for metrics that a scrape may not repeat too often. The SQLite driver is synchronous:
// a grouped count over a million rows holds the process (a run's lanes, a server's requests) for about a
// second, so a dear read (DEAR_READ_MS and more) is reused until `ratio` times its own duration has passed:
// it takes at most 1/ratio of the process's time however often Prometheus asks. A cheaper read is fresh at
// every scrape.
import { positiveKnob } from '../core/test-knob.js';

export interface PacedRead<T> {
  /** The last figures while they are young enough, else a new read (concurrent callers share it). */
  read(): Promise<T>;
  /** The next read() reads afresh (final figures). */
  expire(): void;
}

export const DEFAULT_PACE_RATIO = 20;
export const DEAR_READ_MS = 250;

/** DEAR_READ_MS, or GBATCH_METRICS_DEAR_READ_MS (a test knob: a test that compares two scrapes wants both fresh). */
export function dearReadMs(env: NodeJS.ProcessEnv): number {
  return positiveKnob(env, 'GBATCH_METRICS_DEAR_READ_MS', DEAR_READ_MS);
}

export function pacedRead<T>(
  load: () => Promise<T>,
  options: { ratio?: number; dearMs?: number; now?: () => number } = {},
): PacedRead<T> {
  const ratio = options.ratio ?? DEFAULT_PACE_RATIO;
  const dearMs = options.dearMs ?? DEAR_READ_MS;
  const now = options.now ?? (() => performance.now());
  let last: { value: T; until: number } | undefined;
  let loading: Promise<T> | undefined;
  return {
    read() {
      if (last && now() < last.until) return Promise.resolve(last.value);
      loading ??= (async () => {
        const started = now();
        try {
          const value = await load();
          const ended = now();
          const took = ended - started;
          last = { value, until: took >= dearMs ? ended + took * ratio : ended };
          return value;
        } finally {
          loading = undefined;
        }
      })();
      return loading;
    },
    expire() {
      last = undefined;
    },
  };
}
