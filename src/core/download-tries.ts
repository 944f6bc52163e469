// Pure: what a run does after one of a video's download rounds failed. A round is the client's own
// attempts (the content endpoint, then result_url). A run tries a few rounds, backing off between them;
// the row's failed rounds are counted in the journal across runs, so a download that keeps failing ends
// its row `failed` (the task stays billed) instead of holding a job or a served batch open for ever.

/** Rounds one run tries per row: a transient failure (5xx, 429, a cut connection, a short body) is tried again. */
export const MAX_DOWNLOAD_ROUNDS = 5;

/** Failed rounds a row may have in all (every run's, since its task was sent or attached): then it is given up. */
export const MAX_DOWNLOAD_FAILURES = 10;

/** `again`: another round this run; `later`: left `succeeded` for a later run; `forfeit`: the row ends `failed`. */
export type DownloadVerdict = 'again' | 'later' | 'forfeit';

export interface FailedRound {
  /** The row's failed rounds in all, this one included. */
  failures: number;
  /** This run's round that failed (1-based). */
  round: number;
  /** A failure a later round may not meet (5xx, 429, a cut, a short body); a definite refusal is not. */
  transient: boolean;
  /** The run is stopping: it starts no further round. */
  stopping: boolean;
}

export function afterFailedDownload(failed: FailedRound): DownloadVerdict {
  if (failed.failures >= MAX_DOWNLOAD_FAILURES) return 'forfeit';
  return failed.transient && !failed.stopping && failed.round < MAX_DOWNLOAD_ROUNDS ? 'again' : 'later';
}
