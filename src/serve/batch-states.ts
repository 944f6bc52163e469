// The batch lifecycle as a table: OpenAI's statuses, the moves between them and what each move writes. Pure.
// validating -> in_progress -> finalizing -> completed | expired | cancelled, or validating -> failed; a cancel
// (validating or in_progress -> cancelling) ends cancelled; a finalizing batch another run took up again goes
// back to work. The scheduler asks this table; nothing else compares statuses by hand.

export const BATCH_STATUSES = [
  'validating',
  'failed',
  'in_progress',
  'finalizing',
  'completed',
  'expired',
  'cancelling',
  'cancelled',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** Statuses a server (re)starts work on: the rest are final. */
export const LIVE_STATUSES: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling'];
/** Final statuses whose batch has output and error files (a `failed` batch's input was refused whole). */
export const ENDED_WITH_FILES: readonly BatchStatus[] = ['completed', 'expired', 'cancelled'];

export const canMove = (status: string, move: BatchMove): boolean =>
  (BATCH_MOVES[move].from as readonly string[]).includes(status);
export const isLive = (status: string): boolean => (LIVE_STATUSES as readonly string[]).includes(status);
export const isFinal = (status: string): boolean => !isLive(status);
export const hasFiles = (status: string): boolean => (ENDED_WITH_FILES as readonly string[]).includes(status);
/** A batch whose job runs (sends, polls, downloads): its counts are the journal's of the instant. */
export const isRunning = (status: string): boolean => status === 'in_progress' || status === 'cancelling';

/** The moves, each with the statuses it leaves from, where it goes and the timestamp it sets (null: clears). */
export const BATCH_MOVES = {
  validate: { from: ['validating'], to: 'in_progress', stamp: 'in_progress_at' },
  refuse: { from: ['validating'], to: 'failed', stamp: 'failed_at' },
  cancel: { from: ['validating', 'in_progress'], to: 'cancelling', stamp: 'cancelling_at' },
  finalize: { from: ['in_progress', 'cancelling'], to: 'finalizing', stamp: 'finalizing_at' },
  /** Back at work: cancelling when it was cancelled, else in_progress. */
  reopen: { from: ['finalizing'], to: 'in_progress', stamp: null },
  complete: { from: ['finalizing'], to: 'completed', stamp: 'completed_at' },
  expire: { from: ['finalizing'], to: 'expired', stamp: 'expired_at' },
  end_cancelled: { from: ['finalizing'], to: 'cancelled', stamp: 'cancelled_at' },
} as const satisfies Record<string, { from: readonly BatchStatus[]; to: BatchStatus; stamp: string | null }>;
export type BatchMove = keyof typeof BATCH_MOVES;

/** Which move ends a finalizing batch in each final status with files. */
export const ENDING_MOVE = { completed: 'complete', expired: 'expire', cancelled: 'end_cancelled' } as const;

export class IllegalBatchMove extends Error {
  constructor(
    readonly status: string,
    readonly move: BatchMove,
  ) {
    super(`a ${status} batch cannot ${move.replace('_', ' ')}`);
    this.name = 'IllegalBatchMove';
  }
}

interface Moving {
  status: BatchStatus;
  fields: { cancelling_at: number | null; finalizing_at: number | null };
}

/**
 * The batch after `move` at `at` (seconds), with `fields` written too; throws IllegalBatchMove from a status the
 * move does not leave from. `from` is what the catalog's compare-and-set expects.
 */
export function moved<B extends Moving>(
  batch: B,
  move: BatchMove,
  at: number,
  fields: Partial<B['fields']> = {},
): { batch: B; from: readonly BatchStatus[] } {
  const rule = BATCH_MOVES[move];
  if (!canMove(batch.status, move)) throw new IllegalBatchMove(batch.status, move);
  const to: BatchStatus = move === 'reopen' && batch.fields.cancelling_at !== null ? 'cancelling' : rule.to;
  const stamp = rule.stamp === null ? { finalizing_at: null } : { [rule.stamp]: at };
  return { batch: { ...batch, status: to, fields: { ...batch.fields, ...fields, ...stamp } }, from: rule.from };
}
