// Which runner of a job sends each of the job's notifications, when several share it (PostgreSQL): the
// journal elects one, so a webhook hears a job's end and each budget threshold once, not once per runner.
// A stretch of the job's runs (runners overlapping in time) is one "session" of notices.

export interface JobNotices {
  /** This runner joined: when no other runner is still at work on the job, the last session's notices are forgotten. */
  begin(): Promise<void>;
  /** True for exactly one runner of the job's session: the first to claim `notice` (compare-and-set in the journal). */
  claim(notice: string): Promise<boolean>;
  /**
   * This runner is done with the job: true for the last runner to end while no other live runner is still
   * at work (it speaks for the job's end); that one closes the session.
   */
  end(): Promise<boolean>;
}
