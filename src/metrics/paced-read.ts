// A read of the journal for metrics that a scrape may not repeat too often. The SQLite driver is synchronous:
// a grouped count over a million rows holds the process (a run's lanes, a server's requests) for about a
// second, so a dear read (DEAR_READ_MS and more) is reused until `ratio` times its own duration has passed:
// it takes at most 1/ratio of the process's time however often Prometheus asks. A cheaper read is fresh at
// every scrape.
export interface PacedRead<T> {
  /** The last figures while they are young enough, else a new read (concurrent callers share it). */
  read(): Promise<T>;
  /** The next read() reads afresh (final figures). */
  expire(): void;
}

export const DEFAULT_PACE_RATIO = 20;
export const DEAR_READ_MS = 250;

export function pacedRead<T>(
  load: () => Promise<T>,
  options: { ratio?: number; now?: () => number } = {},
): PacedRead<T> {
  const ratio = options.ratio ?? DEFAULT_PACE_RATIO;
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
          last = { value, until: took >= DEAR_READ_MS ? ended + took * ratio : ended };
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
