// What every query of one job needs: the job's id (absent: a read-only look at a job, or a schema,
// that is not there, which reads as empty) and how messages name the database.
export interface JobContext {
  readonly jobId: number | undefined;
  readonly location: string;
}
