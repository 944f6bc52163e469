// Pure: the mark a `gbatch serve` batch leaves in its job's record when it ends. A final batch's journal
// and files never change (OpenAI's batches do not), so every operator command and every run refuses a
// job that bears it, saying why, and the dashboard offers nothing on it.

/** The key of the job record's options under which the mark is kept. */
export const FINAL_BATCH_KEY = 'finalBatch';

export interface FinalBatch {
  batch: string;
  status: string;
}

/** The mark in a job record's options, if the job is a final serve batch. */
export function finalBatchOf(options: Record<string, unknown> | undefined): FinalBatch | undefined {
  const mark = options?.[FINAL_BATCH_KEY] as Partial<FinalBatch> | undefined;
  if (!mark || typeof mark.batch !== 'string' || typeof mark.status !== 'string') return undefined;
  return { batch: mark.batch, status: mark.status };
}

/** Why nothing may change such a job: one line. */
export function finalBatchRefusal(mark: FinalBatch): string {
  return `the job is the gbatch serve batch ${mark.batch}, which is ${mark.status}; a final batch's journal and files never change; nothing was changed`;
}
