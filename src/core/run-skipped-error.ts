// The error of a run that did nothing by the operator's choice: kept apart from the pipeline that throws it,
// so that classifying an error (every command's last step) loads no pipeline.

/** `--if-running skip` found the job's runner alive: this run did nothing, by the operator's choice. */
export class RunSkippedError extends Error {
  readonly code = 'GBATCH_RUN_SKIPPED';
  constructor(readonly holder: string) {
    super(`skipped: ${holder} is still running this job (--if-running skip); nothing was done`);
    this.name = 'RunSkippedError';
  }
}
